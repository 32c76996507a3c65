import HailDriver
import HailTesting

extension DriverModel {
    /// Returns once `condition` holds within one of the model's steps (a state that may not last still counts);
    /// throws after `seconds` of real time, saying what the driver's screen, outbox and last problem were.
    func until(
        _ what: String, within seconds: Double = 30, _ condition: @escaping @MainActor (DriverModel) -> Bool
    ) async throws {
        try await HailTesting.until(
            what, within: seconds,
            state: { "screen \(screen); outbox \(outbox.pendingIntents); problem \(lastProblem ?? "none")" }
        ) { await self.waitUntil(condition) }
    }
}
