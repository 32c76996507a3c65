/// Durable storage of `DriverSavedState`: a save must survive a kill of the app once it returns (the case the
/// store exists for; `SQLiteOutboxStore` commits in WAL at `synchronous=NORMAL`).
public protocol OutboxStore: Sendable {
    /// The saved state, or nil on a first launch.
    func load() async throws -> DriverSavedState?
    /// Replaces the saved state.
    func save(_ state: DriverSavedState) async throws
}
