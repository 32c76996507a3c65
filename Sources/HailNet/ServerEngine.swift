import CLibWebSockets
import Foundation
import HailThreads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's per-connection state, isolated to the lws loop thread through `LoopExecutor`.
///
/// lws callbacks enter it synchronously with `assumeIsolated` (they already run on the loop thread);
/// Swift tasks reach it with `await`, which hops onto the loop via the executor. An HTTP handler runs on the loop
/// that read its request (a task preferring the loop's executor), so one that does not suspend is answered in the
/// same turn with no thread switch; work too heavy for the loop hops off it itself (`offTheLoop`). Static files
/// and the upgrade decision run on the cooperative pool (`Task.detached`); a WebSocket read on its loop
/// (`.handle`) gets its messages right here, in the receive callback.
actor ServerEngine: LoopEngine {
    nonisolated let executor: LoopExecutor
    nonisolated let metrics: NetMetrics
    private let configuration: NetServerConfiguration
    private let respond: HTTPResponder
    private let webSocketHandler: WebSocketHandler?
    private var sessions = SessionTable()
    /// Connections lws handed over raw for a method it does not know, and how far their answer is.
    private var unknownMethodStages: [UInt64: UnknownMethodExchange.Stage] = [:]
    /// The session whose request head `answerInPlace` is reading, whether that request may be answered in the same
    /// callback (a GET or HEAD: no body follows it), and whether its response came back meanwhile.
    private var answeringInPlace: (id: UInt64?, eligible: Bool, answered: Bool) = (nil, false, false)
    /// This loop's staging buffer for WebSocket frames.
    private let writeScratch = WriteScratch()
    /// Reused for every HTTP write: LWS_PRE headroom, room for a response head, and the largest body piece the
    /// HTTP machine hands out (a head larger than `headBytes` gets a buffer of its own for its one write).
    private var scratch = [UInt8](
        repeating: 0, count: SharedMessage.headroom + ServerEngine.headBytes + HTTPRequestStateMachine.maximumChunkBytes
    )
    /// Set by a drain: every response says `Connection: close` and ends its connection, so kept-alive clients (a
    /// balancer's upstream pool) move to another node rather than keep this one's sockets.
    private var closesAfterEachResponse = false
    /// The connections lws instantiated on this loop (accepted and adopted), so the end of each is reported once.
    private var connections = Set<OpaquePointer>()
    /// Told when one of `connections` ends (the server's `LoopPlacement` counts it off this loop).
    private let connectionEnded: @Sendable () -> Void
    /// Told, on the loop thread, how many `connections` there are each time one begins or ends (the loop gathers
    /// readiness only while it holds many, `NetServerConfiguration.ioCoalescingFromConnections`).
    private let connectionsChanged: @Sendable (Int) -> Void
    /// Room for a response head in `scratch`: the status line, lws's own fields and the handler's.
    private static let headBytes = 8_192

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(
        executor: LoopExecutor, metrics: NetMetrics, configuration: NetServerConfiguration,
        respond: @escaping HTTPResponder, webSocket: WebSocketHandler?,
        connectionEnded: @escaping @Sendable () -> Void = {},
        connectionsChanged: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.connectionEnded = connectionEnded
        self.connectionsChanged = connectionsChanged
        self.executor = executor
        self.metrics = metrics
        self.configuration = configuration
        self.respond = respond
        webSocketHandler = webSocket
    }

    /// The entry for every lws callback of the server context: each case turns the callback into an event of the
    /// session's machine and carries out the action it returns.
    func handle(_ arguments: CallbackArguments) -> Int32 {
        let (wsi, input, length) = (arguments.wsi, arguments.input, arguments.length)
        switch arguments.reason {
        case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
            metrics.acceptedConnections.wrappingAdd(1, ordering: .relaxed)
            connections.insert(wsi)
            connectionsChanged(connections.count)
            return 0
        case LWS_CALLBACK_HTTP:
            return answerInPlace(wsi)
        case LWS_CALLBACK_HTTP_BODY:
            guard let session = WireSession.of(wsi) else { return 0 }
            let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            return afterRead(session.http?.receivedBodyChunk(chunk) ?? .ignore, session, wsi)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            // lws sends this also after a Content-Length: 0 POST, which the machine dispatched at its head and now
            // ignores, so the handler runs once.
            var result: Int32 = 0
            executor.runInPlace { result = completeBody(wsi) }
            return result
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let session = WireSession.of(wsi) else { return 0 }
            return writeResponse(session, wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            return establish(wsi)
        case LWS_CALLBACK_RECEIVE:
            guard let session = WireSession.of(wsi) else { return 0 }
            return WebSocketIO.receive(session, wsi: wsi, input: input, length: length, metrics: metrics)
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let session = WireSession.of(wsi) else { return 0 }
            return WebSocketIO.writable(session, wsi: wsi, scratch: writeScratch, metrics: metrics)
        case LWS_CALLBACK_RECEIVE_PONG:
            if let session = WireSession.of(wsi) { WebSocketIO.heard(session) }
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let session = WireSession.of(wsi) { WebSocketIO.peerClosed(session, input: input, length: length) }
            return 0
        case LWS_CALLBACK_CLOSED:
            if let session = WireSession.of(wsi) { WebSocketIO.closed(session, metrics: metrics) }
            return 0
        case LWS_CALLBACK_RAW_RX:
            return answerUnknownMethod(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
        case LWS_CALLBACK_RAW_WRITEABLE:
            return writeUnknownMethodAnswer(wsi)
        case LWS_CALLBACK_WSI_DESTROY:
            if connections.remove(wsi) != nil {
                connectionEnded()
                connectionsChanged(connections.count)
            }
            if let session = WireSession.of(wsi) {
                unknownMethodStages[session.id] = nil
                WebSocketIO.closed(session, metrics: metrics)
                session.detach()
                sessions.remove(id: session.id)
            }
            return 0
        default:
            return 0
        }
    }

    /// The session attached to `wsi`, made and tracked at the connection's first request or upgrade.
    private func session(for wsi: OpaquePointer) -> WireSession {
        if let existing = WireSession.of(wsi) { return existing }
        let session = WireSession(id: WireSession.nextID())
        sessions.insert(session)
        session.attach(to: wsi)
        return session
    }

    // MARK: HTTP

    /// LWS_CALLBACK_HTTP: reads the head and runs its handler in place (`LoopExecutor.runInPlace`). A GET or HEAD
    /// answered before that returns is written here too, in the callback that read it, and its transaction
    /// completed: one turn of the loop per kept-alive request, no wake-up and no writable callback. A handler that
    /// suspends is answered later through the writable callback, as before.
    private func answerInPlace(_ wsi: OpaquePointer) -> Int32 {
        var result: Int32 = 0
        let id = WireSession.of(wsi)?.id
        answeringInPlace = (id, false, false)
        executor.runInPlace { result = beginHTTP(wsi) }
        let answered = answeringInPlace.answered
        answeringInPlace = (nil, false, false)
        guard result == 0, answered, let session = WireSession.of(wsi) else { return result }
        return writeResponse(session, wsi)
    }

    /// LWS_CALLBACK_HTTP: a request head starts the next transaction of the connection's HTTP machine.
    private func beginHTTP(_ wsi: OpaquePointer) -> Int32 {
        let session = session(for: wsi)
        if answeringInPlace.id == nil { answeringInPlace.id = session.id }
        session.bodyEnded = false
        session.closeWhenBodyEnds = false
        let receivedAt = ContinuousClock.now
        guard let (method, path) = HeaderReader.methodAndPath(wsi) else { return -1 }
        let headers = HeaderReader.headers(wsi, customNames: configuration.customHeaderNames)
        let request = HTTPRequest(
            method: method, path: path, query: HeaderReader.query(wsi), headers: headers, body: [],
            remoteAddress: HeaderReader.remoteAddress(wsi), requestID: HeaderReader.requestID(from: headers),
            receivedAt: receivedAt)
        if session.http == nil {
            session.http = HTTPRequestStateMachine(
                maxBodyBytes: configuration.maxRequestBodyBytes,
                requestTimeout: .seconds(configuration.requestTimeoutSeconds))
        }
        return afterRead(session.http!.receivedHead(request, now: receivedAt), session, wsi)
    }

    /// LWS_CALLBACK_HTTP_BODY_COMPLETION: the body is whole; its handler runs (in place, see `answerInPlace`).
    private func completeBody(_ wsi: OpaquePointer) -> Int32 {
        guard let session = WireSession.of(wsi) else { return 0 }
        session.bodyEnded = true
        if session.closeWhenBodyEnds { return -1 }
        return afterRead(session.http?.bodyCompleted(now: .now) ?? .ignore, session, wsi)
    }

    /// Carries out the HTTP machine's answer to a head, a body chunk or the body's completion.
    private func afterRead(_ action: HTTPRequestStateMachine.ReadAction, _ session: WireSession, _ wsi: OpaquePointer)
        -> Int32
    {
        switch action {
        case .dispatch(let request, let transaction):
            dispatch(request, transaction: transaction, for: session.id)
        case .requestWritable:
            lws_callback_on_writable(wsi)
        case .readMore, .ignore:
            break
        }
        return 0
    }

    /// Asks the responder on this loop: an answer it has now is handed to the connection's machine at once, with no
    /// task; the rest runs as a task on this loop and hands its response over when done. A GET or HEAD that may be
    /// a static file is looked for on the cooperative pool first (disk reads block), and the responder asked after.
    private func dispatch(_ request: HTTPRequest, transaction: UInt64, for id: UInt64) {
        metrics.httpRequests.wrappingAdd(1, ordering: .relaxed)
        metrics.bytesReceived.wrappingAdd(request.body.count, ordering: .relaxed)
        if id == answeringInPlace.id { answeringInPlace.eligible = request.method == "GET" || request.method == "HEAD" }
        let respond = respond
        let staticRoot = configuration.staticFilesDirectory
        let mayBeStatic = staticRoot != nil && (request.method == "GET" || request.method == "HEAD")
        var work: (@Sendable () async -> HTTPResponse)?
        if !mayBeStatic {
            switch respond(request) {
            case .now(let response):
                deliver(Self.stamped(response, request), to: id, transaction: transaction)
                return
            case .later(let later):
                work = later
            }
        }
        let loop = executor
        metrics.httpInFlight.wrappingAdd(1, ordering: .relaxed)
        Task(executorPreference: loop) { [self, work] in
            defer { metrics.httpInFlight.wrappingSubtract(1, ordering: .relaxed) }
            let response: HTTPResponse
            if let staticRoot, mayBeStatic,
                let file = await offTheLoop({ StaticFiles.response(root: staticRoot, path: request.path) })
            {
                response = file
            } else {
                // Named, so a task the handler starts (a deadline race) can stay on this loop too.
                response = await LoopAffinity.$executor.withValue(loop) { () async -> HTTPResponse in
                    if let work { return await work() }
                    switch respond(request) {
                    case .now(let response): return response
                    case .later(let later): return await later()
                    }
                }
            }
            await deliver(Self.stamped(response, request), to: id, transaction: transaction)
        }
    }

    /// `response` with the request's id, unless the handler set one of its own.
    private static func stamped(_ response: HTTPResponse, _ request: HTTPRequest) -> HTTPResponse {
        guard response.headers["x-request-id"] == nil else { return response }
        var response = response
        response.headers.add("X-Request-Id", request.requestID)
        return response
    }

    /// A handler's response, back on the loop; the machine drops it if its connection moved on or already answered.
    private func deliver(_ response: HTTPResponse, to id: UInt64, transaction: UInt64) {
        guard let session = sessions[id], let wsi = session.wsi,
            case .requestWritable? = session.http?.responseReady(response, transaction: transaction)
        else { return }
        if id == answeringInPlace.id, answeringInPlace.eligible {
            answeringInPlace.answered = true
            return
        }
        lws_callback_on_writable(wsi)
    }

    /// LWS_CALLBACK_HTTP_WRITEABLE: writes the head with the body's first piece, or the next piece, the machine
    /// hands out.
    private func writeResponse(_ session: WireSession, _ wsi: OpaquePointer) -> Int32 {
        switch session.http?.writable() ?? .ignore {
        case .writeHead(let head, let piece, let then):
            guard writeHead(head, with: piece, final: then != .requestWritable, wsi) else { return -1 }
            metrics.httpResponseWrites.wrappingAdd(1, ordering: .relaxed)
            metrics.bytesSent.wrappingAdd(piece.count, ordering: .relaxed)
            return afterWrite(then, session, wsi)
        case .writeBody(let piece, let isFinal, let then):
            let written = scratch.withUnsafeMutableBytes { scratch -> Int32 in
                let start = scratch.baseAddress! + SharedMessage.headroom
                piece.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                return lws_write(
                    wsi, start.assumingMemoryBound(to: UInt8.self), piece.count,
                    isFinal ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
            }
            if written < 0 { return -1 }
            metrics.httpResponseWrites.wrappingAdd(1, ordering: .relaxed)
            metrics.bytesSent.wrappingAdd(piece.count, ordering: .relaxed)
            return afterWrite(then, session, wsi)
        case .ignore:
            return 0
        }
    }

    /// Carries out what follows a successful write of the response.
    private func afterWrite(_ step: HTTPRequestStateMachine.AfterWrite, _ session: WireSession, _ wsi: OpaquePointer)
        -> Int32
    {
        switch step {
        case .requestWritable:
            // lws buffers what the socket did not take and calls back only once it has drained.
            lws_callback_on_writable(wsi)
            return 0
        case .completeTransaction:
            // A draining server ends each kept-alive connection with its answer (sent with `Connection: close`).
            if closesAfterEachResponse { return -1 }
            // Non-zero means the connection cannot be kept alive (e.g. the client asked to close).
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        case .closeConnection:
            // Closing with a rejected body still arriving would make the kernel reset the connection, and the
            // client, still writing, could lose the 413 it was sent. Half-close instead: the client reads the
            // answer and then the end of the stream, while what it still sends is read and dropped; the
            // connection goes at the body's end, 2 s after it stops arriving, or at the request deadline.
            if !session.bodyEnded {
                session.closeWhenBodyEnds = true
                shutdown(lws_get_socket_fd(wsi), Int32(SHUT_WR))
                lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, 2)
                return 0
            }
            return -1
        }
    }

    /// Writes the status line, the header fields and `piece` after them in one `lws_write`; false when the head
    /// does not fit or lws refuses it.
    private func writeHead(
        _ head: HTTPRequestStateMachine.ResponseHead, with piece: ArraySlice<UInt8>, final: Bool, _ wsi: OpaquePointer
    ) -> Bool {
        var extra: [(String, String)] = []
        for field in head.headers {
            let name = field.name.lowercased()
            if name == "content-type" || name == "content-length" || name == "connection" { continue }
            extra.append((name + ":", field.value))
        }
        if head.closeConnection || closesAfterEachResponse { extra.append(("connection:", "close")) }
        let capacity = 1024 + extra.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
        if capacity <= Self.headBytes {
            return scratch.withUnsafeMutableBufferPointer { buffer in
                Self.format(
                    head, extra, piece, final, wsi, into: buffer.baseAddress! + SharedMessage.headroom, capacity)
            }
        }
        // A rare head beyond the scratch's room: a buffer of its own, still one write.
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: SharedMessage.headroom + capacity + piece.count)
        defer { buffer.deallocate() }
        return Self.format(head, extra, piece, final, wsi, into: buffer + SharedMessage.headroom, capacity)
    }

    /// Lays the head out at `start` (at most `capacity` bytes, `LWS_PRE` headroom before it and room for `piece`
    /// after it), appends `piece` and writes the whole.
    private static func format(
        _ head: HTTPRequestStateMachine.ResponseHead, _ extra: [(String, String)], _ piece: ArraySlice<UInt8>,
        _ final: Bool, _ wsi: OpaquePointer, into start: UnsafeMutablePointer<UInt8>, _ capacity: Int
    ) -> Bool {
        let end = start + capacity - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let contentType = head.headers["content-type"] ?? "application/octet-stream"
        if lws_add_http_common_headers(wsi, UInt32(head.status), contentType, UInt64(head.contentLength), &cursor, end)
            != 0
        {
            return false
        }
        for (name, value) in extra {
            let ok = value.withCString { valuePointer in
                valuePointer.withMemoryRebound(to: UInt8.self, capacity: value.utf8.count) { bytes in
                    lws_add_http_header_by_name(wsi, name, bytes, Int32(value.utf8.count), &cursor, end)
                }
            }
            if ok != 0 { return false }
        }
        guard lws_finalize_http_header(wsi, &cursor, end) == 0, let headEnd = cursor else { return false }
        piece.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                UnsafeMutableRawPointer(headEnd).copyMemory(from: base, byteCount: bytes.count)
            }
        }
        let length = headEnd - start + piece.count
        // lws writes HTTP/1 bytes as they are whatever the kind (no compression is built in); the kind says where
        // the response ends for lws's bookkeeping.
        let kind = piece.isEmpty ? LWS_WRITE_HTTP_HEADERS : final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP
        return Int(lws_write(wsi, start, length, kind)) == length
    }

    // MARK: Unknown methods

    /// LWS_CALLBACK_RAW_RX on a connection whose request line had a method lws does not know: once the line is
    /// whole, the handler answers it like any request (405, 501...), written raw; what else arrives is dropped.
    private func answerUnknownMethod(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        let session = session(for: wsi)
        let sofar: [UInt8]
        switch unknownMethodStages[session.id] {
        case nil: sofar = Array(bytes)
        case .reading(let earlier): sofar = earlier + Array(bytes)
        default: return 0
        }
        switch UnknownMethodExchange.step(sofar) {
        case .readMore(let keep):
            unknownMethodStages[session.id] = .reading(keep)
        case .answer(let answer):
            unknownMethodStages[session.id] = .writing(answer)
            lws_callback_on_writable(wsi)
        case .dispatch(let method, let path):
            unknownMethodStages[session.id] = .answering
            metrics.httpRequests.wrappingAdd(1, ordering: .relaxed)
            let request = HTTPRequest(
                method: method, path: path, remoteAddress: HeaderReader.remoteAddress(wsi),
                requestID: HeaderReader.requestID(from: HTTPHeaders()))
            let id = session.id
            switch respond(request) {
            case .now(let response):
                deliverUnknownMethodAnswer(UnknownMethodExchange.bytes(of: Self.stamped(response, request)), to: id)
            case .later(let work):
                Task.detached { [self] in
                    let response = await work()
                    await deliverUnknownMethodAnswer(
                        UnknownMethodExchange.bytes(of: Self.stamped(response, request)), to: id)
                }
            }
        }
        return 0
    }

    private func deliverUnknownMethodAnswer(_ answer: [UInt8], to id: UInt64) {
        guard let wsi = sessions[id]?.wsi, case .answering? = unknownMethodStages[id] else { return }
        unknownMethodStages[id] = .writing(answer)
        lws_callback_on_writable(wsi)
    }

    /// LWS_CALLBACK_RAW_WRITEABLE: writes the answer once it is there, and closes on the next call.
    private func writeUnknownMethodAnswer(_ wsi: OpaquePointer) -> Int32 {
        guard let session = WireSession.of(wsi) else { return -1 }
        switch unknownMethodStages[session.id] {
        case .reading?, .answering?:
            return 0
        case .writing(let answer)?:
            // A rare path: a buffer of its own with lws's headroom rather than the bounded scratch.
            var buffer = [UInt8](repeating: 0, count: SharedMessage.headroom) + answer
            let written = buffer.withUnsafeMutableBufferPointer { buffer in
                // LWS_WRITE_RAW is LWS_WRITE_HTTP (a macro Swift does not see): the bytes as they are.
                lws_write(wsi, buffer.baseAddress! + SharedMessage.headroom, answer.count, LWS_WRITE_HTTP)
            }
            if written < 0 { return -1 }
            metrics.httpResponseWrites.wrappingAdd(1, ordering: .relaxed)
            metrics.bytesSent.wrappingAdd(answer.count, ordering: .relaxed)
            // lws keeps what the socket did not take and calls back only once it has gone out.
            unknownMethodStages[session.id] = .closing
            lws_callback_on_writable(wsi)
            return 0
        case .closing?, nil:
            return -1
        }
    }

    // MARK: WebSocket

    /// LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: an upgrade request; allowed, it makes the connection a WebSocket.
    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        let path = HeaderReader.methodAndPath(wsi)?.path ?? "/"
        let headers = HeaderReader.headers(wsi, customNames: configuration.customHeaderNames)
        let request = WebSocketRequest(
            path: path, query: HeaderReader.query(wsi), headers: headers,
            remoteAddress: HeaderReader.remoteAddress(wsi),
            requestID: HeaderReader.requestID(from: headers))
        var machine = WebSocketServerStateMachine(
            maxMessageBytes: configuration.maxInboundMessageBytes, keepalive: keepalive)
        switch machine.upgradeRequested(request, handlerInstalled: webSocketHandler != nil) {
        case .allowUpgrade:
            let session = session(for: wsi)
            session.webSocket = .server(machine)
            // Earlier requests on this connection are answered; it speaks WebSocket from here on.
            session.http = nil
            return 0
        case .refuseUpgrade:
            return -1
        }
    }

    /// LWS_CALLBACK_ESTABLISHED: the handshake is done; makes the connection and runs the handler's decision.
    private func establish(_ wsi: OpaquePointer) -> Int32 {
        guard let handler = webSocketHandler, let session = WireSession.of(wsi),
            case .startHandler(let request)? = session.webSocket?.withServer({ $0.established(now: .now) })
        else { return -1 }
        let connection = WebSocketConnection(
            id: session.id, request: request,
            limits: (configuration.essentialQueueLimit, configuration.disposableQueueLimit), metrics: metrics,
            inboundLimit: configuration.inboundQueueLimit, control: ServerEngine.control(for: self))
        session.connection = connection
        // Not read until the decision is in: a refused peer's messages reach nobody, and a handler installed
        // later misses nothing.
        WebSocketIO.setReading(session, wsi: wsi, enabled: false)
        metrics.openConnections.wrappingAdd(1, ordering: .relaxed)
        metrics.totalConnections.wrappingAdd(1, ordering: .relaxed)
        let id = session.id
        Task.detached { [self] in
            switch await handler(request) {
            case .reject(let code, let reason):
                connection.close(code: code, reason: reason)
            case .handle(let makeHandler):
                await install(makeHandler, on: id)
            case .accept(let body):
                connection.resumeReading()
                await body(connection)
                connection.close(code: 1000, reason: "")
            }
        }
        return 0
    }

    /// Makes the loop handler of a `.handle` decision, on the loop, and starts reading for it.
    private func install(_ makeHandler: (WebSocketConnection) -> any WebSocketInboundHandler, on id: UInt64) {
        guard let session = sessions[id], let wsi = session.wsi, let connection = session.connection else { return }
        session.inboundHandler = makeHandler(connection)
        connection.trimRequest()
        WebSocketIO.setReading(session, wsi: wsi, enabled: true)
    }

    /// Carries out a connection's request on the loop (see `LoopEngine`).
    func carryOut(_ request: ConnectionControl, for id: UInt64) {
        guard let session = sessions[id], let wsi = session.wsi else { return }
        WebSocketIO.carryOut(request, session, wsi: wsi, scratch: writeScratch, metrics: metrics)
    }

    /// The periodic sweep of one slice of the sessions: WebSocket keepalive (see `WebSocketIO.sweep`), and HTTP requests whose body
    /// has not arrived in `requestTimeoutSeconds`, which are dropped without an answer.
    func tick() {
        let now = ContinuousClock.now
        let slice = sessions.nextSlice(of: Keepalive.sweepSlices)
        WebSocketIO.sweep(slice, now: now)
        for session in slice {
            guard let wsi = session.wsi, case .dropSlowRequest? = session.http?.tick(now: now) else { continue }
            metrics.slowRequestDrops.wrappingAdd(1, ordering: .relaxed)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, hail_lws_to_kill_async())
        }
    }

    private var keepalive: Keepalive {
        Keepalive(pingSeconds: configuration.pingIntervalSeconds, idleSeconds: configuration.idleTimeoutSeconds)
    }

    /// Starts a close handshake on every WebSocket and returns them, for shutdown to await.
    func closeAllWebSockets(code: UInt16, reason: String) -> [WebSocketConnection] {
        let open = sessions.all.compactMap(\.connection)
        for connection in open { connection.close(code: code, reason: reason) }
        return open
    }

    /// Every WebSocket open now on this loop.
    func webSockets() -> [WebSocketConnection] { sessions.all.compactMap(\.connection) }

    /// From now on each HTTP response closes its connection (see `closesAfterEachResponse`).
    func closeAfterEachResponse() { closesAfterEachResponse = true }

    /// Number of lws connections the engine still tracks (tests use it to check for leaks).
    var sessionCount: Int { sessions.count }
}
