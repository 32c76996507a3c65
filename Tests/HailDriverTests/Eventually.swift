import HailDriver
import HailTestSupport

/// Returns once `condition` holds within one of the driver model's steps; throws after `seconds` of real time with
/// what the screen, the batcher and the outbox were (HailAppLiveTests' DriverLoopback has the same wait).
@MainActor
func eventually(
    _ model: DriverModel, within seconds: Double = 30, _ what: String,
    _ condition: @escaping @MainActor @Sendable (DriverModel) -> Bool
) async throws {
    try await until(
        what, within: seconds,
        state: {
            let batcher = model.pipeline.batcher
            return
                "screen \(model.screen); in flight \(batcher.inFlight.map(\.seq)), pending \(batcher.pending.count), "
                + "buffered \(batcher.buffer.count), outbox failures \(model.outbox.entries.map(\.failedAttempts)), "
                + "problem \(model.lastProblem ?? "none")"
        }
    ) { await model.waitUntil(condition) }
}
