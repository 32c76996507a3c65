import CLibWebSockets

/// The client's per-connection state, isolated to its lws loop thread (see `ServerEngine`).
actor ClientEngine: LoopEngine {
    nonisolated let executor: LoopExecutor
    nonisolated let metrics: NetMetrics
    nonisolated let configuration: WebSocketClientConfiguration
    private var context: OpaquePointer?
    private var sessions = SessionTable()
    /// This loop's staging buffer for WebSocket frames.
    private let writeScratch = WriteScratch()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: LoopExecutor, metrics: NetMetrics, configuration: WebSocketClientConfiguration) {
        self.executor = executor
        self.metrics = metrics
        self.configuration = configuration
    }

    /// Gives the engine its context; called on the creating thread before the loop starts.
    func attach(context: ContextPointer) {
        self.context = context.pointer
    }

    /// Opens one connection; resumes when the handshake completes or fails.
    func connect(_ target: ClientTarget) async throws -> WebSocketConnection {
        try await withCheckedThrowingContinuation { continuation in
            guard let context else {
                continuation.resume(throwing: NetError.notRunning("the WebSocket client is shut down"))
                return
            }
            let session = WireSession(id: WireSession.nextID())
            sessions.insert(session)
            session.webSocket = .client(
                WebSocketClientStateMachine(maxMessageBytes: configuration.maxInboundMessageBytes, keepalive: keepalive)
            )
            session.pendingHandler = target.handler
            session.connectContinuation = continuation
            session.clientHeaders = target.headers
            session.clientRequest = WebSocketRequest(
                path: target.path, query: target.query, headers: HTTPHeaders(target.headers),
                remoteAddress: target.host, requestID: "")
            var info = lws_client_connect_info()
            info.context = context
            info.address = session.keep(target.host)
            info.port = Int32(target.port)
            info.path = session.keep(target.pathAndQuery)
            info.host = session.keep("\(target.host):\(target.port)")
            info.origin = session.keep("\(target.secure ? "https" : "http")://\(target.host):\(target.port)")
            info.ietf_version_or_minus_one = -1
            if target.secure {
                info.ssl_connection = hail_lws_client_use_ssl()
                // HTTP/1.1 only: an upgrade over HTTP/2 needs RFC 8441 on the proxy, which nginx lacks.
                info.alpn = session.keep("http/1.1")
            }
            info.local_protocol_name = session.keep("hail")
            info.opaque_user_data = Unmanaged.passUnretained(session).toOpaque()
            // lws's validity timers off, as for the context (see EventLoop).
            info.retry_and_idle_policy = UnsafePointer(EventLoop.noValidityChecks)
            if let local = target.localAddress { info.iface = session.keep(local) }
            if let connected = lws_client_connect_via_info(&info) {
                session.wsi = connected
            } else {
                // lws may already have reported CONNECTION_ERROR synchronously; the machine fails the connect once.
                connectionFailed(session, "could not start connecting to \(target.host):\(target.port)")
            }
        }
    }

    /// The entry for every lws callback of the client context: each case turns the callback into an event of the
    /// session's client machine and carries out the action it returns.
    func handle(_ arguments: CallbackArguments) -> Int32 {
        let (wsi, input, length) = (arguments.wsi, arguments.input, arguments.length)
        guard let session = WireSession.of(wsi) else { return 0 }
        switch arguments.reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(session, wsi, input, length)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            var detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            if let refused = hail_lws_tls_verify_failure(wsi) {
                detail = "certificate verify failed: \(String(cString: refused)) (\(detail))"
            }
            connectionFailed(session, detail)
            return 0
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            establish(session, wsi)
            return 0
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return WebSocketIO.receive(session, wsi: wsi, input: input, length: length, metrics: metrics)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return WebSocketIO.writable(session, wsi: wsi, scratch: writeScratch, metrics: metrics)
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            WebSocketIO.heard(session)
            return 0
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            WebSocketIO.peerClosed(session, input: input, length: length)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED:
            WebSocketIO.closed(session, metrics: metrics)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            switch session.webSocket?.withClient({ $0.destroyed() }) ?? .ignore {
            case .failConnect(let detail): failConnect(session, detail)
            case .finish(let info): WebSocketIO.finish(session, info, metrics: metrics)
            case .ignore: break
            }
            session.detach()
            sessions.remove(id: session.id)
            return 0
        default:
            return 0
        }
    }

    /// LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: adds the connect call's header fields to the handshake.
    private func appendHeaders(
        _ session: WireSession, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        guard let input else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return 0 }
        let end = start + length
        for (name, value) in session.clientHeaders {
            let key = name.lowercased() + ":"
            let status = Array(value.utf8).withUnsafeBufferPointer { bytes in
                lws_add_http_header_by_name(wsi, key, bytes.baseAddress, Int32(bytes.count), cursor, end)
            }
            if status != 0 { return -1 }
        }
        return 0
    }

    /// LWS_CALLBACK_CLIENT_ESTABLISHED: makes the connection, its loop handler if any, and resumes the connect.
    private func establish(_ session: WireSession, _ wsi: OpaquePointer) {
        guard case .resumeConnect? = session.webSocket?.withClient({ $0.established(now: .now) }),
            let request = session.clientRequest
        else { return }
        let connection = WebSocketConnection(
            id: session.id, request: request,
            limits: (configuration.essentialQueueLimit, configuration.disposableQueueLimit), metrics: metrics,
            control: ClientEngine.control(for: self))
        session.connection = connection
        if let makeHandler = session.pendingHandler.take() {
            session.inboundHandler = makeHandler(connection)
        }
        metrics.openConnections.wrappingAdd(1, ordering: .relaxed)
        metrics.totalConnections.wrappingAdd(1, ordering: .relaxed)
        session.connectContinuation.take()?.resume(returning: connection)
    }

    /// The connect failed before the handshake (lws's CONNECTION_ERROR, or no connection was started at all).
    private func connectionFailed(_ session: WireSession, _ detail: String) {
        guard case .failConnect(let detail)? = session.webSocket?.withClient({ $0.connectionFailed(detail) })
        else { return }
        failConnect(session, detail)
    }

    /// Fails the connect call, as the machine said, naming the target.
    private func failConnect(_ session: WireSession, _ detail: String) {
        // Without a wsi lws will never destroy, so no WSI_DESTROY would remove the session.
        if session.wsi == nil { sessions.remove(id: session.id) }
        let target = session.clientRequest.map { "\($0.remoteAddress)\($0.path)" } ?? "server"
        session.connectContinuation.take()?.resume(
            throwing: NetError.connectFailed("WebSocket connect to \(target) failed: \(detail)"))
    }

    /// The periodic keepalive sweep of one slice of the sessions (see `WebSocketIO.sweep`).
    func tick() {
        WebSocketIO.sweep(sessions.nextSlice(of: Keepalive.sweepSlices), now: .now)
    }

    nonisolated var keepalive: Keepalive {
        Keepalive(pingSeconds: configuration.pingIntervalSeconds, idleSeconds: configuration.idleTimeoutSeconds)
    }

    /// Carries out a connection's request on the loop (see `LoopEngine`).
    func carryOut(_ request: ConnectionControl, for id: UInt64) {
        guard let session = sessions[id], let wsi = session.wsi else { return }
        WebSocketIO.carryOut(request, session, wsi: wsi, scratch: writeScratch, metrics: metrics)
    }

    /// Starts a close handshake on every connection and returns them, for shutdown to await.
    func closeAll(code: UInt16, reason: String) -> [WebSocketConnection] {
        context = nil
        let open = sessions.all.compactMap(\.connection)
        for connection in open { connection.close(code: code, reason: reason) }
        return open
    }
}

/// The lws context pointer handed to the client engine before its loop starts.
struct ContextPointer: @unchecked Sendable {
    // @unchecked: handed over on the creating thread while it still owns the context; afterwards only
    // the loop thread uses it.
    let pointer: OpaquePointer
}

/// Where one client connection goes, parsed from its URL.
struct ClientTarget: Sendable {
    var host: String
    var port: Int
    /// wss://: TLS, verifying the server's certificate.
    var secure: Bool
    var path: String
    var query: [QueryItem]
    var pathAndQuery: String
    var headers: [(String, String)]
    var localAddress: String?
    /// Makes the loop handler that reads the connection, if it is read on the loop.
    var handler: (@Sendable (WebSocketConnection) -> any WebSocketInboundHandler)? = nil
}
