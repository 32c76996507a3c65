/// The client's mirror of the server's trip: applies what the server sends, never anything older.
///
/// The server owns the state, so an update that skips states the table would require (the app missed
/// events while offline) is still applied, and reported so the caller can log it.
public struct TripStateMachine: Sendable, Hashable {
    /// What applying an update did.
    public enum Outcome: Sendable, Hashable {
        /// The update was newer and followed the transition table (or kept the state).
        case applied
        /// The update was newer but its state is not reachable in one step from ours: we missed events.
        case appliedWithJump(from: TripState, to: TripState)
        /// The update was not newer than what we have (`received` <= `current`), so it was dropped.
        case ignoredStale(current: Int, received: Int)
        /// The update is for another trip while ours is still active, so it was dropped.
        case ignoredOtherTrip(current: String, received: String)
    }

    /// The newest trip applied, or nil before the first.
    public private(set) var trip: Trip?

    /// Creates a mirror, optionally from a trip restored at launch.
    public init(trip: Trip? = nil) { self.trip = trip }

    /// True while the mirrored trip needs a live screen.
    public var isActive: Bool { trip?.state.isActive ?? false }

    /// Applies `update` from the stream or a REST answer if it is newer than what we have.
    ///
    /// A different trip replaces ours only when ours has ended; use `replace(with:)` for the answer to
    /// "what is my active trip?", which is authoritative whatever we held.
    @discardableResult
    public mutating func apply(_ update: Trip) -> Outcome {
        guard let current = trip else {
            trip = update
            return .applied
        }
        if update.id != current.id {
            guard !current.state.isActive else { return .ignoredOtherTrip(current: current.id, received: update.id) }
            trip = update
            return .applied
        }
        guard update.version > current.version else {
            // A REST answer that lost the race to a newer frame still brings the PIN the frames never carry.
            if current.pickupPIN == nil, let pin = update.pickupPIN { trip?.pickupPIN = pin }
            return .ignoredStale(current: current.version, received: update.version)
        }
        var update = update
        // The PIN comes only in the rider's REST answers, never in a stream frame: keep it across the frames.
        if update.pickupPIN == nil { update.pickupPIN = current.pickupPIN }
        trip = update
        if update.state == current.state || TripTransitions.isAllowed(from: current.state, to: update.state) {
            return .applied
        }
        return .appliedWithJump(from: current.state, to: update.state)
    }

    /// Takes the server's answer to "what is my active trip?" (nil: none), as a resync after launch or a gap.
    ///
    /// For the same trip this is `apply(_:)`: a resync racing a newer stream update must not undo it.
    @discardableResult
    public mutating func replace(with active: Trip?) -> Outcome {
        guard let active else {
            // The server has no active trip for us. Keep a finished trip on screen (its fare), drop a
            // trip we still thought was live: it ended while we were away.
            if let current = trip, current.state.isActive { trip = nil }
            return .applied
        }
        if let current = trip, current.id == active.id { return apply(active) }
        trip = active
        return .applied
    }
}
