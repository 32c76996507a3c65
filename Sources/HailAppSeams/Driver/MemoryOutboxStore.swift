/// An `OutboxStore` in memory, for tests and tools that do not need to survive a kill.
public actor MemoryOutboxStore: OutboxStore {
    /// The last state saved.
    public private(set) var state: DriverSavedState?
    /// How many saves there have been.
    public private(set) var saveCount = 0

    /// Creates a store, optionally holding a state already.
    public init(_ state: DriverSavedState? = nil) { self.state = state }

    /// The saved state.
    public func load() -> DriverSavedState? { state }

    /// Replaces the saved state.
    public func save(_ state: DriverSavedState) {
        self.state = state
        saveCount += 1
    }
}
