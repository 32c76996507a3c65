import Dispatch

/// Returns once `condition` holds, checked now and after every step of a model (its `changes()`); throws
/// `HarnessError` naming `what` (and `state()`, when given) after `seconds` of real time: a failure deadline, never a
/// pause. The one way tests wait on a rider's or a driver's model.
@MainActor
public func until<Screen: Sendable>(
    _ changes: AsyncStream<Screen>, _ what: String, within seconds: Double = 30,
    state: () -> String = { "" }, _ condition: () -> Bool
) async throws {
    if condition() { return }
    let (steps, deadline) = AsyncStream.makeStream(of: Void.self)
    let relay = Task {
        // The first screen is the one the stream starts with, not a step: a model between two halves of a step
        // (its trip applied, its screen not yet drawn) is judged only once the step is done.
        for await _ in changes.dropFirst() { deadline.yield() }
        deadline.finish()
    }
    defer { relay.cancel() }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { deadline.finish() }
    for await _ in steps where condition() { return }
    if condition() { return }
    let described = state()
    throw HarnessError(description: "\(what): not within \(seconds) s" + (described.isEmpty ? "" : " (\(described))"))
}
