/// The change stream the rider's and the driver's models share: after every step a model takes, each listener gets
/// its screen as it is then, unchanged screens included (a step may change what the screen does not show).
///
/// SwiftUI needs none of it (the models are `@Observable`); a script printing every screen, the simulated city and
/// tests waiting for a condition do. A listener that stops iterating is forgotten; `finish` ends every stream.
/// A stream's listener runs after the step, when the model may have moved on; `firstStep(where:)` judges its
/// condition within the step itself, for a state that may not last (a link down for a moment).
@MainActor
public final class ModelChanges<Screen: Sendable> {
    private var listeners: [Int: AsyncStream<Screen>.Continuation] = [:]
    private var waiters: [(id: Int, condition: @MainActor () -> Bool, continuation: CheckedContinuation<Bool, Never>)] =
        []
    private var nextID = 0

    /// No listener yet.
    public init() {}

    /// A stream of every screen from the next step on, starting with `current`.
    public func stream(startingWith current: Screen) -> AsyncStream<Screen> {
        let (stream, continuation) = AsyncStream.makeStream(of: Screen.self, bufferingPolicy: .unbounded)
        nextID += 1
        let id = nextID
        listeners[id] = continuation
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.listeners[id] = nil }
        }
        return stream
    }

    /// Returns true once `condition` holds, judged now and within every later step; false when the model shuts down
    /// or the waiting task is cancelled first.
    @discardableResult
    public func firstStep(where condition: @escaping @MainActor () -> Bool) async -> Bool {
        if condition() { return true }
        nextID += 1
        let id = nextID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiters.append((id, condition, continuation))
                }
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.release(id) }
        }
    }

    /// A step was taken: every listener gets `screen`, and every waiter whose condition now holds is answered.
    public func stepTaken(_ screen: Screen) {
        for listener in listeners.values { listener.yield(screen) }
        guard !waiters.isEmpty else { return }
        var waiting: [(id: Int, condition: @MainActor () -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        for waiter in waiters {
            if waiter.condition() { waiter.continuation.resume(returning: true) } else { waiting.append(waiter) }
        }
        waiters = waiting
    }

    /// Ends every stream and answers every waiter false (the model was shut down).
    public func finish() {
        for listener in listeners.values { listener.finish() }
        listeners.removeAll()
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.continuation.resume(returning: false) }
    }

    private func release(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }
}
