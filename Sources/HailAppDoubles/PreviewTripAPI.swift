import Foundation
import HailAppSeams
import HailCore
import HailProtocol

/// A `TripAPI` for SwiftUI previews: answers at once with the preview ride, no network. A request gives a trip
/// already assigned to its driver; the active trip is that one once requested.
public actor PreviewTripAPI: TripAPI {
    private var current: Trip?

    /// A rider with no trip yet, or already on `trip`.
    public init(trip: Trip? = nil) { current = trip }

    /// Two products, 18.50 and 27.90 EUR.
    public func estimates(pickup: Coordinate, dropoff: Coordinate) async throws -> [Estimate] {
        [
            Estimate(productID: .economy, fare: PreviewRide.fare, etaSeconds: 240),
            Estimate(productID: .xl, fare: Money(amountMinor: 2790, currency: "EUR"), etaSeconds: 420),
        ]
    }

    /// The preview trip, assigned.
    public func requestTrip(_ request: TripRequest, idempotencyKey: UUID) async throws -> Trip {
        let trip = current ?? PreviewRide.trip(.driverAssigned, version: 2)
        current = trip
        return trip
    }

    /// The trip requested, if any.
    public func activeTrip() async throws -> Trip? { current?.state.isActive == true ? current : nil }

    /// The trip requested; any other id is refused as the server would.
    public func trip(id: String) async throws -> Trip {
        guard let current, current.id == id else { throw CallError.refused(.notFound("no trip \(id)")) }
        return current
    }

    /// Cancelled, one version on.
    public func cancel(tripID: String, idempotencyKey: UUID) async throws -> Trip {
        guard var trip = current, trip.id == tripID else { throw CallError.refused(.notFound("no trip \(tripID)")) }
        trip.state = .cancelled
        trip.version += 1
        current = trip
        return trip
    }
}
