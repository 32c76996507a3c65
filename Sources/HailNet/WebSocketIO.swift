import CLibWebSockets

/// The WebSocket callback handling shared by the server and client engines. Loop thread only.
enum WebSocketIO {
    /// Takes one received chunk: a whole message in one chunk is handed over straight from lws's buffer;
    /// fragments are appended and the message is handed over when its last fragment is complete.
    static func receive(
        _ session: WireSession, wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int, limit: Int,
        metrics: NetMetrics
    ) -> Int32 {
        guard let connection = session.connection else { return 0 }
        session.lastHeard = .now
        let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        if !session.inMessage {
            let binary = lws_frame_is_binary(wsi) != 0
            if final {
                if length > limit { return tooBig(session, wsi: wsi, limit: limit) }
                let bytes = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
                let message: WebSocketMessage =
                    binary ? .binary(Array(bytes)) : .text(String(decoding: bytes, as: UTF8.self))
                return deliver(message, count: length, session, wsi: wsi, connection: connection, metrics: metrics)
            }
            session.inMessage = true
            session.rxBinary = binary
            session.rxBuffer = []
        }
        if session.rxBuffer.count + length > limit { return tooBig(session, wsi: wsi, limit: limit) }
        if let input, length > 0 {
            session.rxBuffer.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        guard final else { return 0 }
        let bytes = session.rxBuffer
        // Released, not kept: an idle connection holds no receive buffer beyond lws's own.
        session.rxBuffer = []
        session.inMessage = false
        let message: WebSocketMessage =
            session.rxBinary ? .binary(bytes) : .text(String(decoding: bytes, as: UTF8.self))
        return deliver(message, count: bytes.count, session, wsi: wsi, connection: connection, metrics: metrics)
    }

    private static func tooBig(_ session: WireSession, wsi: OpaquePointer, limit: Int) -> Int32 {
        closeNow(
            session, wsi: wsi, code: WebSocketCloseInfo.messageTooBigCode, reason: "message larger than \(limit) bytes")
    }

    /// Gives a complete message to the loop handler (and carries out its answer) or to `messages`.
    private static func deliver(
        _ message: WebSocketMessage, count: Int, _ session: WireSession, wsi: OpaquePointer,
        connection: WebSocketConnection, metrics: NetMetrics
    ) -> Int32 {
        metrics.bytesReceived.wrappingAdd(count, ordering: .relaxed)
        metrics.messagesReceived.wrappingAdd(1, ordering: .relaxed)
        guard let handler = session.inboundHandler else {
            connection.deliver(message)
            return 0
        }
        switch handler.received(message, on: connection) {
        case .proceed:
            break
        case .pauseReading:
            setReading(session, wsi: wsi, enabled: false)
        case .close(let code, let reason):
            connection.close(code: code, reason: reason)
        }
        return 0
    }

    /// Switches reading the socket on or off (lws rx flow control), once per change.
    static func setReading(_ session: WireSession, wsi: OpaquePointer, enabled: Bool) {
        guard session.readingPaused == enabled else { return }
        session.readingPaused = !enabled
        lws_rx_flow_control(wsi, enabled ? 1 : 0)
    }

    /// Hands a posted event to the loop handler.
    static func event(_ session: WireSession, _ event: any Sendable) {
        guard let connection = session.connection, let handler = session.inboundHandler else { return }
        handler.event(event, on: connection)
    }

    /// Writes at most one queued message (lws allows one ws write per writable callback) or closes.
    static func writable(_ session: WireSession, wsi: OpaquePointer, scratch: WriteScratch, metrics: NetMetrics)
        -> Int32
    {
        guard let connection = session.connection else { return 0 }
        if session.pingDue {
            session.pingDue = false
            // A non-empty payload: lws 4.1.6 peers do not answer zero-length pings.
            var frame = [UInt8](repeating: 0, count: SharedMessage.headroom + 4)
            frame.replaceSubrange(SharedMessage.headroom..., with: Array("hail".utf8))
            let written = frame.withUnsafeMutableBufferPointer { buffer in
                lws_write(wsi, buffer.baseAddress! + SharedMessage.headroom, 4, LWS_WRITE_PING)
            }
            if written < 0 { return -1 }
            // One write per callback: queued messages go on the next one.
            if connection.hasPendingWrites { lws_callback_on_writable(wsi) }
            return 0
        }
        switch connection.takeWrite() {
        case .idle:
            return 0
        case .close(let code, let reason):
            return closeNow(session, wsi: wsi, code: code, reason: reason)
        case .message(let message, let more):
            if write(message, wsi: wsi, scratch: scratch, metrics: metrics) < 0 { return -1 }
            if more { lws_callback_on_writable(wsi) }
            return 0
        }
    }

    /// One message to lws, staged in this loop's own scratch, never from the shared buffer: lws puts the frame
    /// header in the headroom (and a client masks the payload in place), and a message fanned out to sockets
    /// on several loops would have its buffer written by two threads at once.
    private static func write(_ message: SharedMessage, wsi: OpaquePointer, scratch: WriteScratch, metrics: NetMetrics)
        -> Int32
    {
        let mode = message.isBinary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT
        let written = lws_write(wsi, scratch.stage(message), message.count, mode)
        if written < 0 { return -1 }
        metrics.bytesSent.wrappingAdd(message.count, ordering: .relaxed)
        metrics.messagesSent.wrappingAdd(1, ordering: .relaxed)
        return 0
    }

    /// Asks lws for a writable callback; when a close is pending, also arms a kill timer, because a
    /// peer that stopped reading never makes the socket writable and the close frame could wait forever.
    ///
    /// Before that, while nothing is closing, no ping is due and lws holds none of this socket's bytes back,
    /// the queued messages are written at once: an ack answered in the receive callback, or a position
    /// posted from another loop, leaves in this turn instead of waiting a poll cycle for the writable
    /// callback (two epoll changes and a wake-up per message). A socket that stops taking bytes makes lws
    /// buffer the rest; from then on messages wait in the queues, where the disposable ones may be dropped.
    static func requestWrite(_ session: WireSession, wsi: OpaquePointer, scratch: WriteScratch, metrics: NetMetrics) {
        if let connection = session.connection, !session.pingDue, !session.closeTimerArmed {
            while lws_partial_buffered(wsi) == 0, case .message(let message, _) = connection.takeWrite() {
                if write(message, wsi: wsi, scratch: scratch, metrics: metrics) < 0 { break }
            }
            if !connection.hasPendingWrites { return }
        }
        lws_callback_on_writable(wsi)
        guard !session.closeTimerArmed, let close = session.connection?.pendingClose else { return }
        session.closeTimerArmed = true
        // Reported if lws has to kill the connection before the close frame goes out.
        session.localClose = WebSocketCloseInfo(code: close.code, reason: close.reason, byPeer: false)
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, close.immediate ? 1 : 5)
    }

    /// The keepalive sweep, every tick on the loop thread: pings connections quiet for `pingInterval`,
    /// drops those quiet for `idleTimeout`, and re-asks for writable callbacks on connections with
    /// queued data (lws can spend a requested writable callback on a control frame of its own).
    static func sweep(_ sessions: some Sequence<WireSession>, keepalive: Keepalive) {
        let now = ContinuousClock.now
        for session in sessions {
            guard let wsi = session.wsi, let connection = session.connection else { continue }
            let quiet = now - session.lastHeard
            if let idle = keepalive.idleTimeout, quiet >= idle {
                if !session.closeTimerArmed {
                    session.closeTimerArmed = true
                    session.localClose = WebSocketCloseInfo(
                        code: WebSocketCloseInfo.abnormalCode, reason: "no traffic or pong for \(idle)", byPeer: false)
                    lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, hail_lws_to_kill_async())
                }
            } else if let ping = keepalive.pingInterval, quiet >= ping {
                session.pingDue = true
                lws_callback_on_writable(wsi)
            } else if connection.hasPendingWrites {
                lws_callback_on_writable(wsi)
            }
        }
    }

    /// Notes a pong (or any sign of life) from the peer.
    static func heard(_ session: WireSession) {
        session.lastHeard = .now
    }

    /// Records a close frame from the peer: two bytes of code, then the reason.
    static func peerClosed(_ session: WireSession, input: UnsafeMutableRawPointer?, length: Int) {
        guard let input, length >= 2 else {
            session.peerClose = WebSocketCloseInfo(code: 1005, reason: "", byPeer: true)
            return
        }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        let reason = String(decoding: bytes[2...], as: UTF8.self)
        session.peerClose = WebSocketCloseInfo(code: code, reason: reason, byPeer: true)
    }

    /// The connection is gone: tells the Swift side how it ended.
    static func closed(_ session: WireSession, metrics: NetMetrics) {
        guard let connection = session.connection else { return }
        session.connection = nil
        let info =
            session.peerClose ?? session.localClose
            ?? WebSocketCloseInfo(code: WebSocketCloseInfo.abnormalCode, reason: "connection lost", byPeer: false)
        metrics.openConnections.wrappingSubtract(1, ordering: .relaxed)
        connection.finish(info)
        // Dropped here: the handler usually holds the connection, and the session must not keep either.
        let handler = session.inboundHandler
        session.inboundHandler = nil
        handler?.closed(info, on: connection)
    }

    /// Sets the close frame's code and reason and tells lws (by the -1 return) to send it and close.
    static func closeNow(_ session: WireSession, wsi: OpaquePointer, code: UInt16, reason: String) -> Int32 {
        // A close frame's payload is at most 125 bytes: 2 for the code, 123 for the reason.
        var reasonBytes = Array(reason.utf8.prefix(123))
        while !reasonBytes.isEmpty, String(validating: reasonBytes, as: UTF8.self) == nil { reasonBytes.removeLast() }
        let kept = String(decoding: reasonBytes, as: UTF8.self)
        session.localClose = WebSocketCloseInfo(code: code, reason: kept, byPeer: false)
        reasonBytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), buffer.baseAddress, buffer.count)
        }
        return -1
    }
}

/// One loop's buffer for outgoing WebSocket frames: headroom for lws's frame header, then the payload.
/// Grows to the largest message written and is reused for every write of that loop.
final class WriteScratch {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int

    init(capacity: Int = 4_096) {
        self.capacity = capacity
        storage = .allocate(byteCount: SharedMessage.headroom + capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Copies `message`'s payload after the headroom and returns where the payload starts.
    func stage(_ message: SharedMessage) -> UnsafeMutablePointer<UInt8> {
        if message.count > capacity {
            storage.deallocate()
            capacity = message.count
            storage = .allocate(byteCount: SharedMessage.headroom + capacity, alignment: 16)
        }
        let start = storage + SharedMessage.headroom
        start.copyMemory(from: message.payload, byteCount: message.count)
        return start.assumingMemoryBound(to: UInt8.self)
    }
}
