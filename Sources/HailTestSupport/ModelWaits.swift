import Dispatch

/// Returns once `condition` holds, checked now and after every step of a model (its `changes()`); throws
/// `HarnessError` naming `what` (and `state()`, when given) after `seconds` of real time: a failure deadline, never a
/// pause. How tests wait on a rider's or a driver's model for a state that lasts; `until(_:within:state:firstStep:)`
/// for one that may not.
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

/// Returns once `firstStep` answers true: a model's own wait (the driver's `waitUntil`, `ModelChanges.firstStep(where:)`),
/// which judges its condition within the step that met it, so a state that does not last (a link down for a moment)
/// still counts. After `seconds` of real time it is cancelled and `HarnessError` names `what` (and `state()`, when
/// given): a failure deadline, never a pause. A false answer (the model shut down) fails at once.
@MainActor
public func until(
    _ what: String, within seconds: Double = 30, state: () -> String = { "" },
    firstStep: @escaping @MainActor () async -> Bool
) async throws {
    let deadline = Deadline(seconds: seconds)
    let waiter = Task { @MainActor () -> Bool in
        let met = await firstStep()
        deadline.cancel()
        return met
    }
    await deadline.wait()
    waiter.cancel()
    if await waiter.value { return }
    let described = state()
    throw HarnessError(description: "\(what): not within \(seconds) s" + (described.isEmpty ? "" : " (\(described))"))
}
