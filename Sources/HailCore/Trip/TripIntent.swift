import Foundation

/// Something a party wants to happen to a trip. The trip rules decide whether it may.
public enum TripIntent: Sendable, Hashable {
    /// A rider asks for a ride; the server has chosen the new trip's id, and its pickup PIN when one is required.
    case request(TripRequest, tripID: String, pickupPIN: String? = nil)
    /// The offered driver accepts; the server attaches their card and first ETA.
    case offerAccepted(Driver, etaSeconds: Int?)
    /// The assigned driver gives the trip up: back to searching before pickup, cancelled at the pickup.
    case driverCancels
    /// The assigned driver is at the pickup.
    case arrived
    /// The assigned driver starts the trip with the rider on board.
    case started
    /// The assigned driver ends the trip; the server has priced it, on the distance and time in `receipt`.
    case ended(fare: Money, receipt: TripReceipt? = nil)
    /// The rider cancels; refused once the trip has started.
    case riderCancels
    /// The assigned driver waited at the pickup and the rider did not come.
    case noShow
    /// Dispatch found nobody in time.
    case searchTimedOut
    /// The server's ETA for the current leg changed.
    case etaUpdated(seconds: Int)
    /// The server noticed something wrong on the trip under way (a route deviation, a long stop).
    case tripAlert(TripAlert)
    /// The rider answers the trip's alert at `at` (server time): "I'm OK" or "get help".
    case checkIn(CheckInAnswer, at: Date)
    /// The assigned driver's navigation follows a new route (the trip's start, a re-route).
    case routeReported(ReportedRoute)

    /// A stable name for logs, metrics and the audit log (`offerAccepted`, `riderCancels`, ...).
    public var name: String {
        switch self {
        case .request: return "request"
        case .offerAccepted: return "offerAccepted"
        case .driverCancels: return "driverCancels"
        case .arrived: return "arrived"
        case .started: return "started"
        case .ended: return "ended"
        case .riderCancels: return "riderCancels"
        case .noShow: return "noShow"
        case .searchTimedOut: return "searchTimedOut"
        case .etaUpdated: return "etaUpdated"
        case .tripAlert: return "tripAlert"
        case .checkIn: return "checkIn"
        case .routeReported: return "routeReported"
        }
    }

    /// What the audit line adds beside the name: an alert's kind, a check-in's answer, a route's revision and size;
    /// nil for the others.
    public var detail: String? {
        switch self {
        case .tripAlert(let alert): return alert.kind.rawValue
        case .checkIn(let answer, _): return answer.rawValue
        case .routeReported(let route): return "revision \(route.revision), \(route.path.count) points"
        default: return nil
        }
    }
}
