import Foundation
import HailCore
import HailProtocol

/// The driver's screen as one value, derived from the model at one instant; the app words and localises it.
public struct DriverScreen: Codable, Sendable, Hashable {
    /// What the screen says at the top, as a case the app puts into words (the terminal app says it in English).
    public enum Headline: String, Codable, Sendable, Hashable, CaseIterable {
        /// Not taking trips.
        case offline
        /// Online, no offer and no trip.
        case waitingForTrips
        /// An offer is open.
        case newOffer
        /// The accept tap is on its way.
        case accepting
        /// The arrived tap is on its way.
        case arriving
        /// The started tap is on its way.
        case starting
        /// The ended tap is on its way.
        case ending
        /// The cancel tap is on its way.
        case cancelling
        /// Assigned: driving to the pickup.
        case drivingToPickup
        /// At the pickup, waiting for the rider.
        case atPickup
        /// The rider is in the car.
        case onTrip
        /// The trip ended; the fare is shown.
        case completed
        /// The trip was cancelled.
        case cancelled

        /// The headline for a tap on its way, an open offer, the trip's state and being online, in that order.
        public init(pending: DriverIntent.Kind?, offerOpen: Bool, tripState: TripState?, online: Bool) {
            if let pending {
                switch pending {
                case .accept: self = .accepting
                case .arrived: self = .arriving
                case .started: self = .starting
                case .ended: self = .ending
                case .cancel: self = .cancelling
                }
                return
            }
            if offerOpen {
                self = .newOffer
                return
            }
            switch tripState {
            case .driverAssigned?: self = .drivingToPickup
            case .driverArrived?: self = .atPickup
            case .onTrip?: self = .onTrip
            case .completed?: self = .completed
            case .cancelled?: self = .cancelled
            default: self = online ? .waitingForTrips : .offline
            }
        }
    }

    /// A tap the server refused: its code for the app to word, and its own words beside it.
    public struct Refusal: Codable, Sendable, Hashable {
        /// The server's error code; nil when it gave none.
        public var code: APIError.Code?
        /// The server's message, in its words (English).
        public var reason: String

        /// A refusal with `code` and `reason`.
        public init(code: APIError.Code?, reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    /// What the screen says at the top.
    public var headline: Headline
    /// True while the driver is online.
    public var online: Bool
    /// Which link carries positions.
    public var link: DriverLink
    /// The offered trip's id, while an offer is open.
    public var offerTripID: String?
    /// When the open offer lapses.
    public var offerExpiresAt: Date?
    /// The trip on screen.
    public var tripID: String?
    /// Its state as the server last confirmed it.
    public var tripState: TripState?
    /// The action tapped and not yet confirmed, if any.
    public var pending: DriverIntent.Kind?
    /// The fare, once the server has set it.
    public var fare: Money?
    /// Why the server refused the oldest refused action, until dismissed.
    public var rejection: Refusal?
    /// True when heat or Low Power has coarsened the location policy.
    public var degraded: Bool
}
