import Foundation
import HailCore

/// The driver stream's trip offer: `{"type": "offer", "trip": {...}, "expiresAt": "..."}`.
public struct TripOffer: Codable, Sendable, Hashable {
    /// The trip offered, in state `searching`.
    public var trip: Trip
    /// When the offer lapses, in server time; accepting later gets a 409.
    public var expiresAt: Date

    /// Creates an offer.
    public init(trip: Trip, expiresAt: Date) {
        self.trip = trip
        self.expiresAt = expiresAt
    }
}
