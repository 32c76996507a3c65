import CLibWebSockets
import Foundation
import Glibc

/// The server's per-connection state, isolated to the lws loop thread through `LoopExecutor`.
///
/// lws callbacks enter it synchronously with `assumeIsolated` (they already run on the loop thread);
/// Swift tasks reach it with `await`, which hops onto the loop via the executor. HTTP handlers and the
/// upgrade decision run on the cooperative pool (`Task.detached`), once per request or connection; a
/// WebSocket read on its loop (`.handle`) gets its messages right here, in the receive callback.
actor ServerEngine {
    nonisolated let executor: LoopExecutor
    nonisolated let metrics: NetMetrics
    private let configuration: NetServerConfiguration
    private let httpHandler: HTTPHandler
    private let webSocketHandler: WebSocketHandler?
    private var sessions: [UInt64: WireSession] = [:]
    /// This loop's staging buffer for WebSocket frames.
    private let writeScratch = WriteScratch()
    /// Reused for every HTTP body chunk: LWS_PRE headroom plus one chunk.
    private let chunkSize = 65_536
    private var scratch = [UInt8](repeating: 0, count: SharedMessage.headroom + 65_536)

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(
        executor: LoopExecutor, metrics: NetMetrics, configuration: NetServerConfiguration, http: @escaping HTTPHandler,
        webSocket: WebSocketHandler?
    ) {
        self.executor = executor
        self.metrics = metrics
        self.configuration = configuration
        httpHandler = http
        webSocketHandler = webSocket
    }

    /// The entry for every lws callback of the server context.
    func handle(_ arguments: CallbackArguments) -> Int32 {
        let (wsi, input, length) = (arguments.wsi, arguments.input, arguments.length)
        switch arguments.reason {
        case LWS_CALLBACK_HTTP:
            return beginHTTP(wsi)
        case LWS_CALLBACK_HTTP_BODY:
            return receiveBody(wsi, input, length)
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let session = WireSession.of(wsi) else { return 0 }
            session.bodyEnded = true
            // A 413 already went out: the unread body has now been read to its end, so closing cannot reset the
            // connection under the client before it has read the answer.
            if session.closeWhenBodyEnds { return -1 }
            guard !session.bodyRejected, session.request != nil else { return 0 }
            dispatch(session)
            return 0
        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let session = WireSession.of(wsi) else { return 0 }
            return writeResponse(session, wsi)
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            return filterUpgrade(wsi)
        case LWS_CALLBACK_ESTABLISHED:
            return establish(wsi)
        case LWS_CALLBACK_RECEIVE:
            guard let session = WireSession.of(wsi) else { return 0 }
            return WebSocketIO.receive(
                session, wsi: wsi, input: input, length: length, limit: configuration.maxInboundMessageBytes,
                metrics: metrics)
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
        case LWS_CALLBACK_WSI_DESTROY:
            if let session = WireSession.of(wsi) {
                WebSocketIO.closed(session, metrics: metrics)
                session.detach()
                sessions[session.id] = nil
            }
            return 0
        default:
            return 0
        }
    }

    private func session(for wsi: OpaquePointer) -> WireSession {
        if let existing = WireSession.of(wsi) { return existing }
        let session = WireSession(id: WireSession.nextID())
        sessions[session.id] = session
        session.attach(to: wsi)
        return session
    }

    // MARK: HTTP

    private func beginHTTP(_ wsi: OpaquePointer) -> Int32 {
        let session = session(for: wsi)
        guard let (method, path) = HeaderReader.methodAndPath(wsi) else { return -1 }
        let headers = HeaderReader.headers(wsi, customNames: configuration.customHeaderNames)
        session.transaction += 1
        session.response = nil
        session.bodyRejected = false
        session.bodyEnded = false
        session.closeWhenBodyEnds = false
        session.request = HTTPRequest(
            method: method, path: path, query: HeaderReader.query(wsi), headers: headers, body: [],
            remoteAddress: HeaderReader.remoteAddress(wsi), requestID: HeaderReader.requestID(from: headers))
        let declared = Int(headers["content-length"] ?? "") ?? 0
        if declared > configuration.maxRequestBodyBytes {
            rejectBody(session, wsi)
            return 0
        }
        session.expectedBodyBytes = declared
        session.requestDeadline = .now + .seconds(configuration.requestTimeoutSeconds)
        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        if declared > 0 || chunked { return 0 }  // LWS_CALLBACK_HTTP_BODY_COMPLETION dispatches.
        dispatch(session)
        return 0
    }

    private func receiveBody(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        guard let session = WireSession.of(wsi), !session.bodyRejected, session.request != nil else { return 0 }
        if session.request!.body.count + length > configuration.maxRequestBodyBytes {
            rejectBody(session, wsi)
            return 0
        }
        if let input, length > 0 {
            session.request!.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        return 0
    }

    private func rejectBody(_ session: WireSession, _ wsi: OpaquePointer) {
        session.bodyRejected = true
        // The rest of the body is read and dropped until it ends (see finishResponse), within the request timeout.
        session.requestDeadline = .now + .seconds(configuration.requestTimeoutSeconds)
        var response = HTTPResponse.error(
            status: 413, code: "payload_too_large",
            message: "request body exceeds \(configuration.maxRequestBodyBytes) bytes")
        if let id = session.request?.requestID { response.headers.set("X-Request-Id", id) }
        session.response = PendingResponse(response: response, closeAfter: true)
        lws_callback_on_writable(wsi)
    }

    private func dispatch(_ session: WireSession) {
        guard let request = session.request else { return }
        // lws still sends BODY_COMPLETION for a POST whose Content-Length is 0, after we dispatched it at
        // the headers: forgetting the request here makes that second dispatch (and any late body) a no-op.
        session.request = nil
        session.requestDeadline = nil
        metrics.httpRequests.wrappingAdd(1, ordering: .relaxed)
        metrics.bytesReceived.wrappingAdd(request.body.count, ordering: .relaxed)
        let id = session.id
        let transaction = session.transaction
        let handler = httpHandler
        let staticRoot = configuration.staticFilesDirectory
        Task.detached { [self] in
            var response: HTTPResponse
            if let staticRoot, request.method == "GET" || request.method == "HEAD",
                let file = StaticFiles.response(root: staticRoot, path: request.path)
            {
                response = file
            } else {
                response = await handler(request)
            }
            if response.headers["x-request-id"] == nil { response.headers.add("X-Request-Id", request.requestID) }
            await deliver(response, to: id, transaction: transaction, headOnly: request.method == "HEAD")
        }
    }

    private func deliver(_ response: HTTPResponse, to id: UInt64, transaction: UInt64, headOnly: Bool) {
        guard let session = sessions[id], let wsi = session.wsi, session.transaction == transaction,
            session.response == nil, !session.bodyRejected
        else { return }
        session.response = PendingResponse(response: response, headOnly: headOnly)
        lws_callback_on_writable(wsi)
    }

    private func writeResponse(_ session: WireSession, _ wsi: OpaquePointer) -> Int32 {
        guard var pending = session.response else { return 0 }
        if !pending.headersSent {
            guard writeHeaders(pending, wsi) else { return -1 }
            pending.headersSent = true
            session.response = pending
            if pending.response.body.isEmpty || pending.headOnly { return finishResponse(session, wsi) }
            lws_callback_on_writable(wsi)
            return 0
        }
        let body = pending.response.body
        let count = min(chunkSize, body.count - pending.offset)
        let last = pending.offset + count == body.count
        let offset = pending.offset
        let written = scratch.withUnsafeMutableBytes { scratch -> Int32 in
            let start = scratch.baseAddress! + SharedMessage.headroom
            body.withUnsafeBytes { start.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            return lws_write(
                wsi, start.assumingMemoryBound(to: UInt8.self), count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        metrics.bytesSent.wrappingAdd(count, ordering: .relaxed)
        pending.offset += count
        session.response = pending
        if last { return finishResponse(session, wsi) }
        // lws buffers what the socket did not take and calls back only once it has drained.
        lws_callback_on_writable(wsi)
        return 0
    }

    private func writeHeaders(_ pending: PendingResponse, _ wsi: OpaquePointer) -> Bool {
        let response = pending.response
        var extra: [(String, String)] = []
        for field in response.headers {
            let name = field.name.lowercased()
            if name == "content-type" || name == "content-length" || name == "connection" { continue }
            extra.append((name + ":", field.value))
        }
        if pending.closeAfter { extra.append(("connection:", "close")) }
        let capacity = 1024 + extra.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 }
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: SharedMessage.headroom + capacity)
        defer { buffer.deallocate() }
        let start = buffer + SharedMessage.headroom
        let end = start + capacity - 1
        var cursor: UnsafeMutablePointer<UInt8>? = start
        let contentType = response.headers["content-type"] ?? "application/octet-stream"
        if lws_add_http_common_headers(
            wsi, UInt32(response.status), contentType, UInt64(response.body.count), &cursor, end)
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
        return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
    }

    private func finishResponse(_ session: WireSession, _ wsi: OpaquePointer) -> Int32 {
        let closeAfter = session.response?.closeAfter ?? false
        session.response = nil
        session.request = nil
        if closeAfter {
            // Closing with the body still arriving would make the kernel reset the connection, and the client,
            // still writing, could lose the 413 it was sent: close once the body has been read to its end.
            if session.bodyRejected, !session.bodyEnded {
                // Half-close: the client reads the answer and then the end of the stream, while what it still
                // sends is read and dropped; the connection goes at the body's end, or 2 s after it stops
                // arriving, or at the request deadline (the sweep), whichever comes first.
                session.closeWhenBodyEnds = true
                shutdown(lws_get_socket_fd(wsi), Int32(SHUT_WR))
                lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, 2)
                return 0
            }
            return -1
        }
        // Non-zero means the connection cannot be kept alive (e.g. the client asked to close).
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    // MARK: WebSocket

    private func filterUpgrade(_ wsi: OpaquePointer) -> Int32 {
        guard webSocketHandler != nil else { return -1 }
        let session = session(for: wsi)
        let path = HeaderReader.methodAndPath(wsi)?.path ?? "/"
        let headers = HeaderReader.headers(wsi, customNames: configuration.customHeaderNames)
        session.webSocketRequest = WebSocketRequest(
            path: path, query: HeaderReader.query(wsi), headers: headers,
            remoteAddress: HeaderReader.remoteAddress(wsi),
            requestID: HeaderReader.requestID(from: headers))
        return 0
    }

    private func establish(_ wsi: OpaquePointer) -> Int32 {
        guard let handler = webSocketHandler, let session = WireSession.of(wsi),
            let request = session.webSocketRequest
        else { return -1 }
        let connection = WebSocketConnection(
            id: session.id, request: request,
            limits: (configuration.essentialQueueLimit, configuration.disposableQueueLimit), metrics: metrics,
            inboundLimit: configuration.inboundQueueLimit, control: Self.control(for: self))
        session.connection = connection
        session.lastHeard = .now
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
        WebSocketIO.setReading(session, wsi: wsi, enabled: true)
    }

    /// The connections' way to the loop: carried out at once on the loop thread (a handler answering in
    /// its receive callback), posted from anywhere else.
    ///
    /// The cycle connection -> closure -> engine -> session -> connection ends when lws destroys the wsi.
    static func control(for engine: ServerEngine) -> @Sendable (UInt64, ConnectionControl) -> Void {
        let executor = engine.executor
        return { id, request in
            if executor.isOnLoopThread {
                engine.assumeIsolated { $0.carryOut(request, for: id) }
            } else {
                executor.post { engine.assumeIsolated { $0.carryOut(request, for: id) } }
            }
        }
    }

    private func carryOut(_ request: ConnectionControl, for id: UInt64) {
        guard let session = sessions[id], let wsi = session.wsi else { return }
        switch request {
        case .write: WebSocketIO.requestWrite(session, wsi: wsi, scratch: writeScratch, metrics: metrics)
        case .reading(let enabled): WebSocketIO.setReading(session, wsi: wsi, enabled: enabled)
        case .event(let event): WebSocketIO.event(session, event)
        }
    }

    /// The periodic sweep: WebSocket keepalive (see `WebSocketIO.sweep`), and HTTP requests whose body
    /// has not arrived in `requestTimeoutSeconds`, which are dropped without an answer.
    func tick() {
        WebSocketIO.sweep(sessions.values, keepalive: keepalive)
        let now = ContinuousClock.now
        for session in sessions.values {
            guard let deadline = session.requestDeadline, now >= deadline, let wsi = session.wsi else { continue }
            session.requestDeadline = nil
            metrics.slowRequestDrops.wrappingAdd(1, ordering: .relaxed)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, hail_lws_to_kill_async())
        }
    }

    private var keepalive: Keepalive {
        Keepalive(pingSeconds: configuration.pingIntervalSeconds, idleSeconds: configuration.idleTimeoutSeconds)
    }

    /// Starts a close handshake on every WebSocket and returns them, for shutdown to await.
    func closeAllWebSockets(code: UInt16, reason: String) -> [WebSocketConnection] {
        let open = sessions.values.compactMap(\.connection)
        for connection in open { connection.close(code: code, reason: reason) }
        return open
    }

    /// Number of lws connections the engine still tracks (tests use it to check for leaks).
    var sessionCount: Int { sessions.count }
}
