/// Keeps the newest driver position and drops anything whose seq is not newer, so the car never moves back.
public struct PositionTracker: Sendable, Hashable {
    /// The newest position applied.
    public private(set) var latest: DriverLocation?
    /// How many positions were dropped as stale or duplicate.
    public private(set) var dropped = 0

    /// Creates an empty tracker.
    public init() {}

    /// Applies `location` if its seq is newer than the newest applied; returns whether it was applied.
    @discardableResult
    public mutating func apply(_ location: DriverLocation) -> Bool {
        if let latest, location.seq <= latest.seq {
            dropped += 1
            return false
        }
        latest = location
        return true
    }

    /// The seq of the newest applied position, the cursor to resume a stream after.
    public var latestSeq: Int64? { latest?.seq }
}
