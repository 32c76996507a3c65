import CLibWebSockets

/// The WebSocket callback handling shared by the server and client engines: each function turns an lws callback
/// (or a connection's request) into an event of the session's `WebSocketStateMachine` and carries out the action
/// it returns with lws calls. Loop thread only.
enum WebSocketIO {
    /// LWS_CALLBACK_(CLIENT_)RECEIVE: a whole message in one chunk is handed over straight from lws's buffer;
    /// fragments are appended to the session's assembly buffer and handed over when the last one is in.
    static func receive(
        _ session: WireSession, wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int, metrics: NetMetrics
    ) -> Int32 {
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        let action =
            session.webSocket?.received(
                byteCount: chunk.count, kind: lws_frame_is_binary(wsi) != 0 ? .binary : .text,
                isFinalFragment: lws_is_final_fragment(wsi) != 0,
                remainingPayload: Int(lws_remaining_packet_payload(wsi)), now: .now) ?? .ignore
        switch action {
        case .append:
            session.assemblyBuffer.append(contentsOf: chunk)
            return 0
        case .deliverWhole(let kind):
            let message: WebSocketMessage =
                kind == .binary ? .binary(Array(chunk)) : .text(String(decoding: chunk, as: UTF8.self))
            return deliver(message, count: chunk.count, session, wsi: wsi, metrics: metrics)
        case .deliverAssembled(let kind):
            session.assemblyBuffer.append(contentsOf: chunk)
            let bytes = session.assemblyBuffer
            // Released, not kept: an idle connection holds no receive buffer beyond lws's own.
            session.assemblyBuffer = []
            let message: WebSocketMessage =
                kind == .binary ? .binary(bytes) : .text(String(decoding: bytes, as: UTF8.self))
            return deliver(message, count: bytes.count, session, wsi: wsi, metrics: metrics)
        case .closeNow(let code, let reason):
            session.assemblyBuffer = []
            return closeNow(wsi: wsi, code: code, reason: reason)
        case .ignore:
            return 0
        }
    }

    /// Gives a complete message to the loop handler (and carries out its answer) or to `messages`.
    private static func deliver(
        _ message: WebSocketMessage, count: Int, _ session: WireSession, wsi: OpaquePointer, metrics: NetMetrics
    ) -> Int32 {
        guard let connection = session.connection else { return 0 }
        metrics.bytesReceived.wrappingAdd(count, ordering: .relaxed)
        metrics.messagesReceived.wrappingAdd(1, ordering: .relaxed)
        guard let handler = session.inboundHandler else {
            connection.deliver(message)
            return 0
        }
        // Called with no machine access held: the handler's sends and closes re-enter the engine at once.
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

    /// Switches reading the socket on or off (lws rx flow control); the machine makes it once per change.
    static func setReading(_ session: WireSession, wsi: OpaquePointer, enabled: Bool) {
        let action = (enabled ? session.webSocket?.resumeReading() : session.webSocket?.pauseReading()) ?? .ignore
        switch action {
        case .stopReceiving: lws_rx_flow_control(wsi, 0)
        case .resumeReceiving: lws_rx_flow_control(wsi, 1)
        case .ignore: break
        }
    }

    /// What a connection asked of its loop (`ConnectionControl`), done on the loop.
    static func carryOut(
        _ request: ConnectionControl, _ session: WireSession, wsi: OpaquePointer, scratch: WriteScratch,
        metrics: NetMetrics
    ) {
        switch request {
        case .write: requestWrite(session, wsi: wsi, scratch: scratch, metrics: metrics)
        case .reading(let enabled): setReading(session, wsi: wsi, enabled: enabled)
        case .event(let event): self.event(session, event)
        }
    }

    /// Hands a posted event to the loop handler.
    static func event(_ session: WireSession, _ event: any Sendable) {
        guard let connection = session.connection, let handler = session.inboundHandler else { return }
        handler.event(event, on: connection)
    }

    /// LWS_CALLBACK_SERVER_WRITEABLE / CLIENT_WRITEABLE: writes what the machine picks (a due ping, one queued
    /// message, or the close frame), staged in this loop's scratch buffer.
    static func writable(_ session: WireSession, wsi: OpaquePointer, scratch: WriteScratch, metrics: NetMetrics)
        -> Int32
    {
        guard let connection = session.connection else { return 0 }
        let action = connection.takeWrite { queue, pendingClose in
            session.webSocket?.writable(queue: &queue, pendingClose: pendingClose) ?? .idle
        }
        switch action {
        case .writePing(let payload, let thenRequestWritable):
            let start = payload.withUnsafeBytes { scratch.stage($0) }
            if lws_write(wsi, start, payload.count, LWS_WRITE_PING) < 0 { return -1 }
            // One write per callback: queued messages go on the next one.
            if thenRequestWritable { lws_callback_on_writable(wsi) }
            return 0
        case .writeMessage(let message, let thenRequestWritable):
            if write(message, wsi: wsi, scratch: scratch, metrics: metrics) < 0 { return -1 }
            if thenRequestWritable { lws_callback_on_writable(wsi) }
            return 0
        case .closeNow(let code, let reason):
            return closeNow(wsi: wsi, code: code, reason: reason)
        case .idle:
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
        if lws_write(wsi, scratch.stage(message), message.count, mode) < 0 { return -1 }
        metrics.bytesSent.wrappingAdd(message.count, ordering: .relaxed)
        metrics.messagesSent.wrappingAdd(1, ordering: .relaxed)
        return 0
    }

    /// A connection queued a write or asked to close (`ConnectionControl.write`): asks lws for a writable
    /// callback, and at the first close also arms the kill timer the machine sets.
    ///
    /// Before that, while nothing is closing and lws holds none of this socket's bytes back, what the machine
    /// picks is written at once: an ack answered in the receive callback, or a position posted from another
    /// loop, leaves in this turn instead of waiting a poll cycle for the writable callback (two epoll changes
    /// and a wake-up per message). A socket that stops taking bytes makes lws buffer the rest; from then on
    /// messages wait in the queues, where the disposable ones may be dropped.
    static func requestWrite(_ session: WireSession, wsi: OpaquePointer, scratch: WriteScratch, metrics: NetMetrics) {
        if let connection = session.connection, connection.pendingClose == nil {
            var closing = false
            writing: while lws_partial_buffered(wsi) == 0 {
                let action = connection.takeWrite { queue, pendingClose in
                    session.webSocket?.writable(queue: &queue, pendingClose: pendingClose) ?? .idle
                }
                switch action {
                case .writeMessage(let message, _):
                    if write(message, wsi: wsi, scratch: scratch, metrics: metrics) < 0 { break writing }
                case .writePing(let payload, _):
                    let start = payload.withUnsafeBytes { scratch.stage($0) }
                    if lws_write(wsi, start, payload.count, LWS_WRITE_PING) < 0 { break writing }
                case .closeNow:
                    // A close the machine took goes out from the writable callback, which it answers again.
                    closing = true
                    break writing
                case .idle:
                    break writing
                }
            }
            if !closing, !connection.hasPendingWrites, connection.pendingClose == nil { return }
        }
        let action: WebSocketFrameStateMachine.WriteRequestAction
        if let close = session.connection?.pendingClose {
            action = session.webSocket?.closeRequested(close) ?? .ignore
        } else {
            action = session.webSocket?.writeRequested() ?? .ignore
        }
        switch action {
        case .requestWritable:
            lws_callback_on_writable(wsi)
        case .requestWritableAndArmKillTimer(let killAfter):
            lws_callback_on_writable(wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, Int32(killAfter.components.seconds))
        case .ignore:
            break
        }
    }

    /// The keepalive sweep of a slice of the sessions, every tick on the loop thread: the machine pings connections
    /// quiet for its ping interval, drops those quiet for its idle timeout, and re-asks for writable callbacks on
    /// connections with queued data (lws can spend a requested writable callback on a control frame of its own).
    static func sweep(_ sessions: some Sequence<WireSession>, now: ContinuousClock.Instant) {
        for session in sessions {
            guard let wsi = session.wsi, session.webSocket != nil else { continue }
            let hasPendingWrites = session.connection?.hasPendingWrites ?? false
            switch session.webSocket?.keepaliveTick(now: now, hasPendingWrites: hasPendingWrites) ?? .ignore {
            case .requestWritable:
                lws_callback_on_writable(wsi)
            case .dropConnection:
                lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, hail_lws_to_kill_async())
            case .ignore:
                break
            }
        }
    }

    /// LWS_CALLBACK_(CLIENT_)RECEIVE_PONG: the peer is alive.
    static func heard(_ session: WireSession) {
        session.webSocket?.heard(now: .now)
    }

    /// LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: records the peer's close frame (two bytes of code, then the reason).
    static func peerClosed(_ session: WireSession, input: UnsafeMutableRawPointer?, length: Int) {
        session.webSocket?.peerClosed(payload: UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
    }

    /// LWS_CALLBACK_(CLIENT_)CLOSED or WSI_DESTROY: the connection is gone; tells the Swift side how it ended, once.
    static func closed(_ session: WireSession, metrics: NetMetrics) {
        guard case .finish(let info)? = session.webSocket?.closed() else { return }
        finish(session, info, metrics: metrics)
    }

    /// Tells the connection and its handler how the connection ended (the machine's `.finish`).
    static func finish(_ session: WireSession, _ info: WebSocketCloseInfo, metrics: NetMetrics) {
        guard let connection = session.connection else { return }
        session.connection = nil
        metrics.openConnections.wrappingSubtract(1, ordering: .relaxed)
        connection.finish(info)
        // Dropped here: the handler usually holds the connection, and the session must not keep either.
        let handler = session.inboundHandler
        session.inboundHandler = nil
        handler?.closed(info, on: connection)
    }

    /// Sets the close frame's code and reason (already cut to fit by the machine) and returns -1, which makes
    /// lws send it and close.
    static func closeNow(wsi: OpaquePointer, code: UInt16, reason: String) -> Int32 {
        var reasonBytes = Array(reason.utf8)
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
        stage(UnsafeRawBufferPointer(start: message.payload, count: message.count))
    }

    /// Copies `bytes` (a control frame's payload) after the headroom and returns where they start.
    func stage(_ bytes: UnsafeRawBufferPointer) -> UnsafeMutablePointer<UInt8> {
        if bytes.count > capacity {
            storage.deallocate()
            capacity = bytes.count
            storage = .allocate(byteCount: SharedMessage.headroom + capacity, alignment: 16)
        }
        let start = storage + SharedMessage.headroom
        if let base = bytes.baseAddress { start.copyMemory(from: base, byteCount: bytes.count) }
        return start.assumingMemoryBound(to: UInt8.self)
    }
}
