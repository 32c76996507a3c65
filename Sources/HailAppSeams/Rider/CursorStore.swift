import Foundation
import HailCore

/// Durable storage of the rider's cursor: the seq of the last driver position applied, per trip, and the
/// arrival the rider was last promised on each leg of it.
///
/// The model saves before it moves its cursor, so an app killed between the two resumes from a
/// position it has really stored and never believes it is more current than it is. The promise (the arrival
/// behind the ETA on screen, `EtaSmoother.promise(at:)`) lets a relaunched app show the minutes it showed before
/// the kill instead of starting its ETA over.
public protocol CursorStore: Sendable {
    /// The stored cursor of `tripID`, or nil when none was stored.
    func load(tripID: String) async throws -> Int64?
    /// Stores `seq` as the cursor of `tripID`; returns only once it survives a kill of the app.
    func save(_ seq: Int64, tripID: String) async throws
    /// The arrival last promised on `tripID` while it was `state` (to the pickup or to the dropoff), or nil.
    func loadPromise(tripID: String, state: TripState) async throws -> Date?
    /// Stores `arrival` as the promise of `tripID` while it is `state`, replacing any earlier one.
    func savePromise(_ arrival: Date, tripID: String, state: TripState) async throws
}
