import Synchronization

/// One open WebSocket, server- or client-side; usable from any task.
///
/// Inbound messages arrive on `messages`, or, for a connection read on its loop, at its
/// `WebSocketInboundHandler`. Sends are queued under a lock and written by the lws loop thread when the
/// socket can take them, so `send` never blocks; on the loop thread itself a send asks lws for the
/// writable callback directly, from any other thread it is posted to the loop (one wake-up per batch).
public final class WebSocketConnection: Sendable {
    /// Process-unique id of this connection (for logs and maps).
    public let id: UInt64
    /// What the connection was opened with (path, query, headers, peer address).
    ///
    /// Whole for the upgrade decision and an `.accept` body; once a `.handle` decision's handler is made, only the
    /// path, the peer's address and the request id stay (`WebSocketRequest.trimmed`): the headers and the query
    /// (a token among them) would otherwise sit in memory for as long as an idle stream stays open.
    public var request: WebSocketRequest { opening.withLock { $0 } }

    private let opening: Mutex<WebSocketRequest>
    /// Every complete inbound message, in order; finishes when the connection closes.
    ///
    /// Made on first use (or on the first message for it): a connection read on its loop by a handler never
    /// holds a stream, which keeps an idle stream small.
    public var messages: AsyncStream<WebSocketMessage> { inbound.withLock { $0.stream(limit: inboundLimit).stream } }

    private let inbound = Mutex(Inbound())

    /// The `messages` stream once made, and whether the connection has finished.
    private struct Inbound {
        var made: (stream: AsyncStream<WebSocketMessage>, continuation: AsyncStream<WebSocketMessage>.Continuation)?
        var finished = false

        mutating func stream(limit: Int?)
            -> (stream: AsyncStream<WebSocketMessage>, continuation: AsyncStream<WebSocketMessage>.Continuation)
        {
            if let made { return made }
            let made = AsyncStream.makeStream(
                of: WebSocketMessage.self, bufferingPolicy: limit.map { .bufferingOldest($0) } ?? .unbounded)
            if finished { made.continuation.finish() }
            self.made = made
            return made
        }
    }
    private let state: Mutex<State>
    private let metrics: NetMetrics
    /// Carries a request (write, reading on or off, an event for the handler) to the owning loop.
    private let control: @Sendable (UInt64, ConnectionControl) -> Void
    /// Inbound messages that may wait for the consumer (nil: no limit).
    private let inboundLimit: Int?

    private struct State {
        var queue: OutboundQueue
        /// A writable callback is requested or in progress; no further wake-up needed until it ends.
        var writeScheduled = false
        var closeRequest: WebSocketFrameStateMachine.CloseRequest?
        var closeInfo: WebSocketCloseInfo?
        var waiters: [CheckedContinuation<WebSocketCloseInfo, Never>] = []
        var drops = 0
    }

    init(
        id: UInt64, request: WebSocketRequest, limits: (essential: Int, disposable: Int), metrics: NetMetrics,
        inboundLimit: Int? = nil, control: @escaping @Sendable (UInt64, ConnectionControl) -> Void
    ) {
        self.id = id
        opening = Mutex(request)
        self.metrics = metrics
        self.control = control
        self.inboundLimit = inboundLimit.map { max(1, $0) }
        state = Mutex(State(queue: OutboundQueue(essentialLimit: limits.essential, disposableLimit: limits.disposable)))
    }

    /// Forgets the handshake's headers and query once the loop's handler is made (see `request`).
    func trimRequest() {
        opening.withLock { $0 = $0.trimmed }
    }

    /// Queues a text message; returns false when the connection is already closing.
    @discardableResult
    public func send(text: String, priority: MessagePriority = .essential) -> Bool {
        send(SharedMessage(text: text), priority: priority)
    }

    /// Queues a binary message; returns false when the connection is already closing.
    @discardableResult
    public func send(binary: [UInt8], priority: MessagePriority = .essential) -> Bool {
        send(SharedMessage(binary: binary), priority: priority)
    }

    /// Queues a message that may also be queued on other connections; returns false when closing.
    @discardableResult
    public func send(_ message: SharedMessage, priority: MessagePriority = .essential) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard state.closeRequest == nil, state.closeInfo == nil else { return (false, false) }
            switch state.queue.enqueue(message, priority: priority) {
            case .queued:
                break
            case .droppedOldest:
                state.drops += 1
                metrics.disposableDrops.wrappingAdd(1, ordering: .relaxed)
            case .overflow:
                state.closeRequest = WebSocketFrameStateMachine.CloseRequest(
                    code: WebSocketCloseInfo.slowConsumerCode, reason: "slow consumer", immediate: true)
                metrics.slowConsumerCloses.wrappingAdd(1, ordering: .relaxed)
                // Always wake: the loop must arm the close timer even if a write is already pending.
                state.writeScheduled = true
                return (false, true)
            }
            return (true, Self.schedule(&state))
        }
        if wake { control(id, .write) }
        return accepted
    }

    /// Starts a close handshake: queued essential messages are flushed first, disposable ones dropped.
    public func close(code: UInt16 = 1000, reason: String = "") {
        let wake = state.withLock { state -> Bool in
            guard state.closeRequest == nil, state.closeInfo == nil else { return false }
            state.closeRequest = WebSocketFrameStateMachine.CloseRequest(code: code, reason: reason, immediate: false)
            state.writeScheduled = true
            return true
        }
        if wake { control(id, .write) }
    }

    /// Stops reading the socket until `resumeReading()` (lws rx flow control); callable from any thread.
    public func pauseReading() { control(id, .reading(false)) }

    /// Reads the socket again after `pauseReading()` or a handler's `.pauseReading`; any thread.
    public func resumeReading() { control(id, .reading(true)) }

    /// Hands `event` to this connection's inbound handler on its loop thread (`handler.event(_:on:)`),
    /// so work finished elsewhere (a commit, a lookup) reaches loop-confined state without a lock.
    public func post(event: any Sendable) { control(id, .event(event)) }

    /// Waits until the connection has closed and tells how.
    public func closed() async -> WebSocketCloseInfo {
        await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketCloseInfo, Never>) in
            let info = state.withLock { state -> WebSocketCloseInfo? in
                if let info = state.closeInfo { return info }
                state.waiters.append(continuation)
                return nil
            }
            if let info { continuation.resume(returning: info) }
        }
    }

    /// How the connection ended, or nil while it is open.
    public var closeInfo: WebSocketCloseInfo? { state.withLock { $0.closeInfo } }

    /// Disposable messages dropped on this connection because its queue was full.
    public var droppedDisposableCount: Int { state.withLock { $0.drops } }

    /// Messages queued and not yet written to the socket (essential, disposable).
    public var queuedCount: (essential: Int, disposable: Int) {
        state.withLock { ($0.queue.essentialCount, $0.queue.disposableCount) }
    }

    /// A connection whose loop requests are dropped (unit tests of its queues).
    convenience init(
        id: UInt64, request: WebSocketRequest, limits: (essential: Int, disposable: Int), metrics: NetMetrics,
        inboundLimit: Int? = nil, requestWrite: @escaping @Sendable (UInt64) -> Void
    ) {
        self.init(
            id: id, request: request, limits: limits, metrics: metrics, inboundLimit: inboundLimit,
            control: { id, request in if case .write = request { requestWrite(id) } })
    }

    private static func schedule(_ state: inout State) -> Bool {
        if state.writeScheduled { return false }
        state.writeScheduled = true
        return true
    }

    // MARK: loop-thread side

    /// Runs the loop's write step (`WebSocketFrameStateMachine.writable`) under the lock, on the queue and the
    /// pending close; called on the loop thread from a writable callback.
    func takeWrite(
        _ step: (inout OutboundQueue, WebSocketFrameStateMachine.CloseRequest?) ->
            WebSocketFrameStateMachine.WriteAction
    ) -> WebSocketFrameStateMachine.WriteAction {
        state.withLock { state in
            let action = step(&state.queue, state.closeRequest)
            // A later send must wake the loop again once nothing is left for the callbacks already requested.
            state.writeScheduled = !state.queue.isEmpty || state.closeRequest != nil
            return action
        }
    }

    /// True while a write or close is queued (the loop re-requests writable callbacks for these).
    var hasPendingWrites: Bool { state.withLock { $0.writeScheduled } }

    /// The close this connection is waiting to perform, if any (loop thread arms a backstop timer).
    var pendingClose: WebSocketFrameStateMachine.CloseRequest? { state.withLock { $0.closeRequest } }

    /// Hands a complete inbound message to the consumer; with the inbound queue full, closes with 4029
    /// instead (the message is not delivered).
    func deliver(_ message: WebSocketMessage) {
        let continuation = inbound.withLock { $0.stream(limit: inboundLimit).continuation }
        if case .dropped = continuation.yield(message), let inboundLimit {
            close(
                code: WebSocketCloseInfo.tooManyMessagesCode,
                reason: "more than \(inboundLimit) messages waiting to be read")
        }
    }

    /// Records the end of the connection, wakes `closed()` waiters and finishes `messages`.
    func finish(_ info: WebSocketCloseInfo) {
        let waiters = state.withLock { state -> [CheckedContinuation<WebSocketCloseInfo, Never>] in
            guard state.closeInfo == nil else { return [] }
            state.closeInfo = info
            state.queue.removeAll()
            defer { state.waiters = [] }
            return state.waiters
        }
        let continuation = inbound.withLock { inbound -> AsyncStream<WebSocketMessage>.Continuation? in
            inbound.finished = true
            return inbound.made?.continuation
        }
        continuation?.finish()
        for waiter in waiters { waiter.resume(returning: info) }
    }
}

/// What a connection asks of the loop that owns its socket.
enum ConnectionControl: Sendable {
    /// Call back when the socket is writable (queued messages or a close).
    case write
    /// Turn reading the socket on or off.
    case reading(Bool)
    /// Give the inbound handler this event on the loop.
    case event(any Sendable)
}
