/// A commit refused because it would give a rider or a driver a second active trip: the database's unique
/// index on each one's active trip said no, and `tripID` is the trip they already have.
public struct ActiveTripConflict: Sendable, Hashable {
    /// Whose active trip stands in the way.
    public enum Party: String, Sendable, Hashable {
        /// The rider already has an active trip (a second request).
        case rider
        /// The driver already holds an active trip (an accept of another).
        case driver
    }

    /// Whose.
    public var party: Party
    /// The rider's or driver's id.
    public var subject: String
    /// The active trip they already have.
    public var tripID: String

    /// Creates a conflict.
    public init(party: Party, subject: String, tripID: String) {
        self.party = party
        self.subject = subject
        self.tripID = tripID
    }
}
