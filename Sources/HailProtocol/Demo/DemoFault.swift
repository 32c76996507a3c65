import Foundation
import HailCore

/// A fault pressed on the demo's console (`POST /v1/demo/faults`, `hail demo` only): a driver's phone in
/// a dead zone, a rider's socket stalled, a rider's app killed and relaunched.
public struct DemoFault: Codable, Sendable, Hashable {
    /// Which fault.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// The driver's phone has no network for `seconds` (default 20).
        case deadZone
        /// The socket of the rider watching the trip delivers nothing for `seconds` (default 12).
        case stallRider
        /// The app of the rider watching the trip is killed; it relaunches a few seconds later.
        case killRider
        /// The server stops (every socket closed) and starts again on the same port and database.
        case restartServer
    }

    /// Which fault.
    public var kind: Kind
    /// The trip whose driver (dead zone) or rider (stall, kill) it hits; none for a restart.
    public var tripID: String?
    /// How long, for a dead zone or a stall.
    public var seconds: Double?

    /// Creates a fault.
    public init(kind: Kind, tripID: String?, seconds: Double? = nil) {
        self.kind = kind
        self.tripID = tripID
        self.seconds = seconds
    }
}

extension DemoFault: Validatable {
    /// `tripID` is there and not empty but for a restart; `seconds`, when given, lies in 1...120.
    public func validate() throws(APIError) {
        if kind != .restartServer, tripID?.isEmpty ?? true {
            throw APIError.invalidField("tripID", "a \(kind.rawValue) needs the tripID it hits")
        }
        if let seconds, !(1...120).contains(seconds) {
            throw APIError.invalidField("seconds", "seconds must be between 1 and 120")
        }
    }
}
