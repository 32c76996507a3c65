/// The established life of one WebSocket, server or client side: message assembly, the write step, closing,
/// keepalive and read back-pressure; pure: the runtime performs every action it returns.
///
/// Message bytes stay with the runtime: the machine counts them and says whether a chunk is appended to the
/// runtime's assembly buffer or is a whole message to deliver straight from lws's input. The outbound queue
/// stays with `WebSocketConnection`, under its lock, because any task may send; the write step borrows it
/// (`inout OutboundQueue`) for the one pop it makes.
struct WebSocketFrameStateMachine: Sendable {
    /// Whether a message is text or binary (decided by its first fragment).
    enum MessageKind: Sendable, Equatable {
        /// A text message (UTF-8).
        case text
        /// A binary message.
        case binary
    }

    /// A close the app asked for, as `WebSocketConnection` holds it.
    struct CloseRequest: Sendable, Equatable {
        /// The close code to send.
        var code: UInt16
        /// The close reason to send (cut to fit a close frame when it goes out).
        var reason: String
        /// Close without flushing queued essential messages (a slow consumer).
        var immediate: Bool
    }

    /// The keepalive ping's payload: non-empty, because lws 4.1.6 peers do not answer zero-length pings.
    static let pingPayload: [UInt8] = Array("hail".utf8)
    /// A close frame carries at most 125 payload bytes: 2 for the code, the rest for the reason.
    static let maximumCloseReasonBytes = 123

    /// Larger inbound messages close the connection with 1009.
    let maxMessageBytes: Int
    /// When to ping a quiet peer and when to give up on it.
    let keepalive: Keepalive

    private var state: State
    /// Kept outside `state` because back-pressure is independent of the close handshake: the runtime may
    /// pause and resume while closing too.
    private var readingPaused = false

    /// The machine of a connection that has just been established at `now`.
    init(maxMessageBytes: Int, keepalive: Keepalive, now: ContinuousClock.Instant) {
        self.maxMessageBytes = maxMessageBytes
        self.keepalive = keepalive
        state = .open(Open(lastHeard: now))
    }

    private enum State {
        /// Reading and writing; a close may be under way (see `Open.localClose`) while queued frames still go out.
        case open(Open)
        /// The close frame has been handed to lws (the callback returned -1); waiting for CLOSED. lws reads and
        /// writes nothing for us any more, so only the peer's close frame and the end are still recorded; but it
        /// still calls back writable while it waits for the peer's answer, and every such callback returns -1
        /// again, which ends the wait (a peer that stopped reading, or one we stopped reading, never answers).
        case closing(Closing)
        /// The app has been told how the connection ended.
        case closed
    }

    private struct Open {
        var assembly = Assembly.idle
        /// When the peer last sent anything (message or pong).
        var lastHeard: ContinuousClock.Instant
        /// A ping goes out on the next writable callback.
        var pingDue = false
        /// Set when this side decided to close and armed the kill timer (close request or idle drop): the timer
        /// is armed at most once, and this is what is reported if lws kills the connection before the close
        /// frame goes out.
        var localClose: WebSocketCloseInfo?
        var peerClose: WebSocketCloseInfo?
    }

    private enum Assembly {
        /// Between messages: the runtime's assembly buffer is empty.
        case idle
        /// Inside a message whose earlier chunks the runtime has buffered.
        case assembling(MessageKind, byteCount: Int)
    }

    private struct Closing {
        /// The close frame that went out.
        var localClose: WebSocketCloseInfo
        var peerClose: WebSocketCloseInfo?
    }

    // MARK: Actions

    /// What the runtime does with one received chunk.
    enum ReceiveAction: Equatable {
        /// Append the chunk to the assembly buffer; the message goes on.
        case append
        /// The chunk alone is a whole message: deliver it straight from the input, without buffering.
        case deliverWhole(MessageKind)
        /// Append the chunk, deliver the buffer as one message and empty the buffer.
        case deliverAssembled(MessageKind)
        /// Set this close code and reason (`lws_close_reason`), discard the buffer and return -1.
        case closeNow(code: UInt16, reason: String)
        /// Not open: discard the chunk.
        case ignore
    }

    /// What the runtime writes on a writable callback (lws allows one WebSocket write per callback).
    enum WriteAction: Equatable {
        /// Write a ping with this payload (`LWS_WRITE_PING`); then, if `thenRequestWritable`, ask for another
        /// writable callback for the queued writes.
        case writePing([UInt8], thenRequestWritable: Bool)
        /// Write this message (text or binary by `message.isBinary`); then, if `thenRequestWritable`, ask for
        /// another writable callback. The runtime stages every frame in its loop's scratch buffer first, because lws
        /// writes the header in front of the payload (and a client masks it in place), so server and client write
        /// alike.
        case writeMessage(SharedMessage, thenRequestWritable: Bool)
        /// Set this close code and reason (`lws_close_reason`) and return -1, which makes lws send it and close.
        case closeNow(code: UInt16, reason: String)
        /// Nothing to write.
        case idle

        /// Same case and payload, messages compared by identity.
        static func == (lhs: WriteAction, rhs: WriteAction) -> Bool {
            switch (lhs, rhs) {
            case (.writePing(let left, let leftMore), .writePing(let right, let rightMore)):
                return left == right && leftMore == rightMore
            case (.writeMessage(let left, let leftMore), .writeMessage(let right, let rightMore)):
                // A shared message is the same message only if it is the same buffer.
                return left === right && leftMore == rightMore
            case (.closeNow(let leftCode, let leftReason), .closeNow(let rightCode, let rightReason)):
                return leftCode == rightCode && leftReason == rightReason
            case (.idle, .idle):
                return true
            default:
                return false
            }
        }
    }

    /// What the runtime does when the app queued a write or asked to close.
    enum WriteRequestAction: Equatable {
        /// Ask lws for a writable callback.
        case requestWritable
        /// Ask for a writable callback and arm the kill timer (`lws_set_timeout` with PENDING_TIMEOUT_CLOSE_SEND):
        /// a peer that stopped reading never makes the socket writable, so the close frame could wait forever.
        case requestWritableAndArmKillTimer(killAfter: Duration)
        /// The connection has ended: nothing to do.
        case ignore
    }

    /// What the runtime does on the keepalive tick.
    enum KeepaliveAction: Equatable {
        /// Ask lws for a writable callback (a ping is due, or queued writes may have lost their callback: lws can
        /// spend a requested one on a control frame of its own).
        case requestWritable
        /// The peer has been silent too long: kill the connection now (`lws_set_timeout` with
        /// `LWS_TO_KILL_ASYNC`).
        case dropConnection
        /// Nothing to do.
        case ignore
    }

    /// What the runtime does when lws reports the connection gone.
    enum FinishAction: Equatable {
        /// Tell the app how the connection ended (`WebSocketConnection.finish`) and count it closed.
        case finish(WebSocketCloseInfo)
        /// Already finished (or never opened): nothing to do.
        case ignore
    }

    /// What the runtime does to pause or resume reading.
    enum FlowControlAction: Equatable {
        /// Stop reading from the socket (`lws_rx_flow_control(wsi, 0)`).
        case stopReceiving
        /// Read from the socket again (`lws_rx_flow_control(wsi, 1)`).
        case resumeReceiving
        /// Already in the asked-for state, or closed: nothing to do.
        case ignore
    }

    // MARK: Events

    /// LWS_CALLBACK_(CLIENT_)RECEIVE: one chunk of `byteCount` bytes. `kind` is the frame's kind (read only for a
    /// message's first chunk); the message is complete after a final fragment with no payload left.
    mutating func received(
        byteCount: Int, kind: MessageKind, isFinalFragment: Bool, remainingPayload: Int, now: ContinuousClock.Instant
    ) -> ReceiveAction {
        guard case .open(var open) = state else { return .ignore }
        open.lastHeard = now
        let (messageKind, buffered, startsMessage): (MessageKind, Int, Bool)
        switch open.assembly {
        case .idle: (messageKind, buffered, startsMessage) = (kind, 0, true)
        case .assembling(let first, let byteCount): (messageKind, buffered, startsMessage) = (first, byteCount, false)
        }
        if buffered + byteCount > maxMessageBytes {
            let code = WebSocketCloseInfo.messageTooBigCode
            let reason = sendClose(open, code: code, reason: "message larger than \(maxMessageBytes) bytes")
            return .closeNow(code: code, reason: reason)
        }
        guard isFinalFragment, remainingPayload == 0 else {
            open.assembly = .assembling(messageKind, byteCount: buffered + byteCount)
            state = .open(open)
            return .append
        }
        open.assembly = .idle
        state = .open(open)
        return startsMessage ? .deliverWhole(messageKind) : .deliverAssembled(messageKind)
    }

    /// LWS_CALLBACK_SERVER_WRITEABLE / CLIENT_WRITEABLE: the one write this callback allows. A due ping goes first;
    /// a pending close flushes the essential messages (unless immediate), drops the rest and closes.
    ///
    /// Call it under the connection's lock: it pops from `queue`. Afterwards "a write is scheduled" is exactly
    /// `!queue.isEmpty || pendingClose != nil`. Once the close frame went out, every callback closes again.
    mutating func writable(queue: inout OutboundQueue, pendingClose: CloseRequest?) -> WriteAction {
        switch state {
        case .open(var open):
            if open.pingDue {
                open.pingDue = false
                state = .open(open)
                return .writePing(Self.pingPayload, thenRequestWritable: !queue.isEmpty || pendingClose != nil)
            }
            if let close = pendingClose {
                if !close.immediate, let message = queue.nextEssential() {
                    return .writeMessage(message, thenRequestWritable: true)
                }
                queue.removeAll()
                return .closeNow(code: close.code, reason: sendClose(open, code: close.code, reason: close.reason))
            }
            guard let message = queue.next() else { return .idle }
            return .writeMessage(message, thenRequestWritable: !queue.isEmpty)
        case .closing(let closing):
            return .closeNow(code: closing.localClose.code, reason: closing.localClose.reason)
        case .closed:
            return .idle
        }
    }

    /// The app queued a message while no write was scheduled; while closing, the callback ends the connection.
    mutating func writeRequested() -> WriteRequestAction {
        if case .closed = state { return .ignore }
        return .requestWritable
    }

    /// The app asked to close (or the connection closed itself as a slow consumer): the first close of either
    /// kind arms the kill timer, 1 s for an immediate close, 5 s to leave time for the flush.
    ///
    /// After the close frame went out the request is not recorded, but the callback is still asked for: it ends the
    /// connection.
    mutating func closeRequested(_ close: CloseRequest) -> WriteRequestAction {
        guard case .open(var open) = state else { return writeRequested() }
        guard open.localClose == nil else { return .requestWritable }
        open.localClose = WebSocketCloseInfo(code: close.code, reason: close.reason, byPeer: false)
        state = .open(open)
        return .requestWritableAndArmKillTimer(killAfter: .seconds(close.immediate ? 1 : 5))
    }

    /// The keepalive sweep: a peer quiet for `idleTimeout` is dropped (once), one quiet for `pingInterval` is
    /// pinged, and a connection with writes scheduled is asked for a writable callback again.
    ///
    /// A closing connection is neither pinged nor dropped; with writes (its close) still scheduled it is asked for
    /// the callback that ends it.
    mutating func keepaliveTick(now: ContinuousClock.Instant, hasPendingWrites: Bool) -> KeepaliveAction {
        guard case .open(var open) = state else {
            if case .closing = state, hasPendingWrites { return .requestWritable }
            return .ignore
        }
        let quiet = now - open.lastHeard
        if let idle = keepalive.idleTimeout, quiet >= idle {
            guard open.localClose == nil else { return .ignore }
            open.localClose = WebSocketCloseInfo(
                code: WebSocketCloseInfo.abnormalCode, reason: "no traffic or pong for \(idle)", byPeer: false)
            state = .open(open)
            return .dropConnection
        }
        if let ping = keepalive.pingInterval, quiet >= ping {
            open.pingDue = true
            state = .open(open)
            return .requestWritable
        }
        return hasPendingWrites ? .requestWritable : .ignore
    }

    /// LWS_CALLBACK_(CLIENT_)RECEIVE_PONG: the peer is alive.
    mutating func heard(now: ContinuousClock.Instant) {
        guard case .open(var open) = state else { return }
        open.lastHeard = now
        state = .open(open)
    }

    /// LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: the peer's close frame payload, two bytes of code and then the
    /// reason; a shorter one means the peer sent no code (1005).
    mutating func peerClosed(payload: some Collection<UInt8>) {
        let info: WebSocketCloseInfo
        var bytes = payload.makeIterator()
        if let high = bytes.next(), let low = bytes.next() {
            let reason = String(decoding: payload.dropFirst(2), as: UTF8.self)
            info = WebSocketCloseInfo(code: UInt16(high) << 8 | UInt16(low), reason: reason, byPeer: true)
        } else {
            info = WebSocketCloseInfo(code: 1005, reason: "", byPeer: true)
        }
        switch state {
        case .open(var open):
            open.peerClose = info
            state = .open(open)
        case .closing(var closing):
            closing.peerClose = info
            state = .closing(closing)
        case .closed:
            break
        }
    }

    /// LWS_CALLBACK_(CLIENT_)CLOSED or WSI_DESTROY: the connection is gone. The peer's close wins over ours, and
    /// with neither the link was lost.
    mutating func closed() -> FinishAction {
        let info: WebSocketCloseInfo
        switch state {
        case .open(let open):
            info =
                open.peerClose ?? open.localClose
                ?? WebSocketCloseInfo(code: WebSocketCloseInfo.abnormalCode, reason: "connection lost", byPeer: false)
        case .closing(let closing):
            info = closing.peerClose ?? closing.localClose
        case .closed:
            return .ignore
        }
        state = .closed
        return .finish(info)
    }

    /// Read back-pressure: stop reading from the socket (the app's inbound queue is full).
    mutating func pauseReading() -> FlowControlAction {
        if case .closed = state { return .ignore }
        guard !readingPaused else { return .ignore }
        readingPaused = true
        return .stopReceiving
    }

    /// Read back-pressure: read from the socket again.
    mutating func resumeReading() -> FlowControlAction {
        if case .closed = state { return .ignore }
        guard readingPaused else { return .ignore }
        readingPaused = false
        return .resumeReceiving
    }

    /// True while reading is paused.
    var isReadingPaused: Bool { readingPaused }

    // MARK: Steps

    /// Records the close frame about to go out and returns its reason cut to fit; from here on lws reads and
    /// writes nothing for us.
    private mutating func sendClose(_ open: Open, code: UInt16, reason: String) -> String {
        let kept = Self.fittedCloseReason(reason)
        state = .closing(
            Closing(localClose: WebSocketCloseInfo(code: code, reason: kept, byPeer: false), peerClose: open.peerClose))
        return kept
    }

    /// `reason` cut to `maximumCloseReasonBytes` bytes, without splitting a UTF-8 sequence.
    static func fittedCloseReason(_ reason: String) -> String {
        var bytes = Array(reason.utf8.prefix(maximumCloseReasonBytes))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A connection machine whose established phase is a `WebSocketFrameStateMachine`: it supplies the frame events
/// once for the server and the client machine, each answering `.ignore` before the connection is established.
protocol WebSocketFrameHost {
    /// Runs `body` on the frame machine once the connection is established; before that returns `notEstablished`.
    mutating func withFrame<Result>(
        notEstablished: Result, _ body: (inout WebSocketFrameStateMachine) -> Result
    ) -> Result
}

extension WebSocketFrameHost {
    /// See `WebSocketFrameStateMachine.received`.
    mutating func received(
        byteCount: Int, kind: WebSocketFrameStateMachine.MessageKind, isFinalFragment: Bool, remainingPayload: Int,
        now: ContinuousClock.Instant
    ) -> WebSocketFrameStateMachine.ReceiveAction {
        withFrame(notEstablished: .ignore) {
            $0.received(
                byteCount: byteCount, kind: kind, isFinalFragment: isFinalFragment, remainingPayload: remainingPayload,
                now: now)
        }
    }

    /// See `WebSocketFrameStateMachine.writable`.
    mutating func writable(
        queue: inout OutboundQueue, pendingClose: WebSocketFrameStateMachine.CloseRequest?
    ) -> WebSocketFrameStateMachine.WriteAction {
        withFrame(notEstablished: .idle) { $0.writable(queue: &queue, pendingClose: pendingClose) }
    }

    /// See `WebSocketFrameStateMachine.writeRequested`.
    mutating func writeRequested() -> WebSocketFrameStateMachine.WriteRequestAction {
        withFrame(notEstablished: .ignore) { $0.writeRequested() }
    }

    /// See `WebSocketFrameStateMachine.closeRequested`.
    mutating func closeRequested(
        _ close: WebSocketFrameStateMachine.CloseRequest
    ) -> WebSocketFrameStateMachine.WriteRequestAction {
        withFrame(notEstablished: .ignore) { $0.closeRequested(close) }
    }

    /// See `WebSocketFrameStateMachine.keepaliveTick`.
    mutating func keepaliveTick(
        now: ContinuousClock.Instant, hasPendingWrites: Bool
    ) -> WebSocketFrameStateMachine.KeepaliveAction {
        withFrame(notEstablished: .ignore) { $0.keepaliveTick(now: now, hasPendingWrites: hasPendingWrites) }
    }

    /// See `WebSocketFrameStateMachine.heard`.
    mutating func heard(now: ContinuousClock.Instant) {
        withFrame(notEstablished: ()) { $0.heard(now: now) }
    }

    /// See `WebSocketFrameStateMachine.peerClosed`.
    mutating func peerClosed(payload: some Collection<UInt8>) {
        withFrame(notEstablished: ()) { $0.peerClosed(payload: payload) }
    }

    /// See `WebSocketFrameStateMachine.closed`.
    mutating func closed() -> WebSocketFrameStateMachine.FinishAction {
        withFrame(notEstablished: .ignore) { $0.closed() }
    }

    /// See `WebSocketFrameStateMachine.pauseReading`.
    mutating func pauseReading() -> WebSocketFrameStateMachine.FlowControlAction {
        withFrame(notEstablished: .ignore) { $0.pauseReading() }
    }

    /// See `WebSocketFrameStateMachine.resumeReading`.
    mutating func resumeReading() -> WebSocketFrameStateMachine.FlowControlAction {
        withFrame(notEstablished: .ignore) { $0.resumeReading() }
    }
}
