import Foundation
import HailAppSeams
import HailThreads
import HailTime

/// A live stream over a `WebSocketTask` (URLSessionWebSocketTask on Apple platforms), its decisions made by
/// `SocketSessionMachine`: `open` returns only when the server has spoken, a silent connection is pinged and then
/// dropped, and a drop ends with 1006. Times come from the injected timeline.
public final class TaskSocket<Task: WebSocketTask>: Sendable {
    private struct State {
        var machine: SocketSessionMachine
        var opening: CheckedContinuation<Void, any Error>?
        var openResult: Result<Void, CallError>?
        var close: SocketClose?
        var closeWaiters: [CheckedContinuation<SocketClose, Never>] = []
        var reader: _Concurrency.Task<Void, Never>?
        /// The task sleeping until the machine's next deadline, and that deadline.
        var timer: _Concurrency.Task<Void, Never>?
        var armedFor: Date?
    }

    /// Frames in arrival order, the server's first one included; finishes when the stream ends.
    public let frames: AsyncStream<SocketFrame>
    private let continuation: AsyncStream<SocketFrame>.Continuation
    private let task: Task
    private let timeline: Timeline
    private let state: Locked<State>

    /// Wraps `task` (not yet resumed).
    public init(task: Task, timeline: Timeline, timing: SocketSessionMachine.Timing = .init()) {
        self.task = task
        self.timeline = timeline
        (frames, continuation) = AsyncStream.makeStream(of: SocketFrame.self)
        state = Locked(State(machine: SocketSessionMachine(timing: timing, resumedAt: timeline.now())))
    }

    /// Resumes the task and returns once the server's first frame has arrived; throws `noAnswer` when the
    /// connection fails or the server stays silent for the open timeout.
    public func open() async throws(CallError) {
        task.resume()
        let reader = _Concurrency.Task { await self.read() }
        state.withLock { $0.reader = reader }
        rearm()
        do {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                let settled = state.withLock { state -> Result<Void, CallError>? in
                    if state.openResult == nil { state.opening = waiter }
                    return state.openResult
                }
                if let settled { waiter.resume(with: settled) }
            }
        } catch let error as CallError {
            throw error
        } catch {
            throw .noAnswer("\(error)")
        }
    }

    /// Sends a frame; false when the stream has ended.
    @discardableResult
    public func send(_ frame: SocketFrame) -> Bool {
        guard state.withLock({ $0.close == nil }) else { return false }
        task.sendFrame(frame) { _ in }
        return true
    }

    /// Closes with `code` and `reason`.
    public func close(code: UInt16 = 1000, reason: String = "") {
        let action = state.withLock { $0.machine.closeRequested(code: code, reason: reason) }
        perform(action)
    }

    /// Waits for the end and tells how it went.
    public func closed() async -> SocketClose {
        await withCheckedContinuation { waiter in
            let close = state.withLock { state -> SocketClose? in
                if state.close == nil { state.closeWaiters.append(waiter) }
                return state.close
            }
            if let close { waiter.resume(returning: close) }
        }
    }

    private func read() async {
        while true {
            do {
                let frame = try await task.receiveFrame()
                let action = state.withLock { $0.machine.frameReceived(at: timeline.now()) }
                continuation.yield(frame)
                perform(action)
                rearm()
            } catch {
                let action = state.withLock {
                    $0.machine.receiveFailed(
                        closeCode: task.peerCloseCode, reason: task.peerCloseReason, error: "\(error)")
                }
                perform(action)
                return
            }
            if state.withLock({ $0.close != nil }) { return }
        }
    }

    /// Sleeps until the machine's next deadline and ticks it, over and over, until the connection ends.
    private func watch() async {
        while let deadline = state.withLock({ state -> Date? in
            state.armedFor = state.machine.nextDeadline
            return state.armedFor
        }) {
            do { try await timeline.sleep(until: deadline) } catch { return }
            let action = state.withLock { $0.machine.tick(at: timeline.now()) }
            perform(action)
        }
    }

    /// Starts the timer, or starts it again when an event brought the machine's deadline before the one it sleeps
    /// until (a pong: the next ping is due 20 s after it, before the 60 s drop the timer was waiting for).
    private func rearm() {
        let replaced = state.withLock { state -> _Concurrency.Task<Void, Never>? in
            guard let deadline = state.machine.nextDeadline else { return nil }
            if state.timer != nil, let armed = state.armedFor, armed <= deadline { return nil }
            let old = state.timer
            state.armedFor = deadline
            state.timer = _Concurrency.Task { await self.watch() }
            return old
        }
        replaced?.cancel()
    }

    private func perform(_ action: SocketSessionMachine.Action) {
        switch action {
        case .none:
            return
        case .opened:
            settleOpen(.success(()))
        case .ping:
            task.ping { [self] error in
                guard error == nil else { return }
                let action = state.withLock { $0.machine.pongReceived(at: timeline.now()) }
                perform(action)
                rearm()
            }
        case .failOpening(let reason):
            task.close(code: nil, reason: "")
            settleOpen(.failure(.noAnswer(reason)))
            finish(SocketClose(code: SocketSessionMachine.abnormalClosure, reason: reason))
        case .end(let close, let cancelTask):
            if cancelTask {
                task.close(
                    code: close.code == SocketSessionMachine.abnormalClosure ? nil : close.code, reason: close.reason)
            }
            settleOpen(.failure(.noAnswer("the stream ended before it opened")))
            finish(close)
        }
    }

    private func settleOpen(_ result: Result<Void, CallError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.openResult == nil else { return nil }
            state.openResult = result
            defer { state.opening = nil }
            return state.opening
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    private func finish(_ close: SocketClose) {
        let (waiters, workers) = state.withLock { state in
            if state.close == nil { state.close = close }
            defer {
                state.closeWaiters = []
                state.reader = nil
                state.timer = nil
            }
            return (state.closeWaiters, [state.reader, state.timer].compactMap { $0 })
        }
        continuation.finish()
        let ended = state.withLock { $0.close } ?? close
        for waiter in waiters { waiter.resume(returning: ended) }
        for worker in workers { worker.cancel() }
    }
}
