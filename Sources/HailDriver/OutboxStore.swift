/// Durable storage of `DriverSavedState`: a save must be on disk when it returns.
public protocol OutboxStore: Sendable {
    /// The saved state, or nil on a first launch.
    func load() async throws -> DriverSavedState?
    /// Replaces the saved state.
    func save(_ state: DriverSavedState) async throws
}
