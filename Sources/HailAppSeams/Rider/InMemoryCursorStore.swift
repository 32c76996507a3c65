import Foundation
import HailCore

/// A cursor store that lives as long as the process: for previews and for tests that model an app kill
/// by building a second model on the same store.
public actor InMemoryCursorStore: CursorStore {
    private var cursors: [String: Int64]
    private var promises: [String: Date] = [:]

    /// Creates a store, optionally with cursors already in it.
    public init(_ cursors: [String: Int64] = [:]) { self.cursors = cursors }

    /// The stored cursor of `tripID`.
    public func load(tripID: String) -> Int64? { cursors[tripID] }

    /// Stores `seq` for `tripID`.
    public func save(_ seq: Int64, tripID: String) { cursors[tripID] = seq }

    /// The promise stored for `tripID` in `state`.
    public func loadPromise(tripID: String, state: TripState) -> Date? { promises[Self.key(tripID, state)] }

    /// Stores the promise of `tripID` in `state`.
    public func savePromise(_ arrival: Date, tripID: String, state: TripState) {
        promises[Self.key(tripID, state)] = arrival
    }

    private static func key(_ tripID: String, _ state: TripState) -> String { state.rawValue + "/" + tripID }
}
