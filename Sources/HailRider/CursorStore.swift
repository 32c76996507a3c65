/// Durable storage of the rider's cursor: the seq of the last driver position applied, per trip.
///
/// The model saves before it moves its cursor, so an app killed between the two resumes from a
/// position it has really stored and never believes it is more current than it is.
public protocol CursorStore: Sendable {
    /// The stored cursor of `tripID`, or nil when none was stored.
    func load(tripID: String) async throws -> Int64?
    /// Stores `seq` as the cursor of `tripID`; returns only once it is durable.
    func save(_ seq: Int64, tripID: String) async throws
}
