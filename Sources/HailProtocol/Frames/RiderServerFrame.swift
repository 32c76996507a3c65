import Foundation
import HailCore

/// A frame the server sends on the rider stream `/v1/trips/{id}/live`.
public enum RiderServerFrame: Codable, Sendable, Hashable {
    /// First frame on every connection: the server's clock, for the client's clock offset.
    case hello(serverTime: Date)
    /// The trip changed (or this is its current state on connect): `{"type": "tripUpdated", "trip": {...}}`.
    case tripUpdated(Trip)
    /// The driver moved.
    case driverMoved(DriverMoved)
    /// The server noticed something wrong on the trip under way: `{"type": "tripAlert", "kind": "routeDeviation",
    /// "since": ..., "raisedAt": ...}`. Essential, like `tripUpdated`; never the rider's answer (a share link's
    /// viewers and the driver may read the stream). An app that predates it skips it as an unknown type.
    case tripAlert(TripAlert)

    /// The `type` strings of this direction, in declaration order.
    public static let types = ["hello", "tripUpdated", "driverMoved", "tripAlert"]

    /// The frame's `type` field.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .tripUpdated: return "tripUpdated"
        case .driverMoved: return "driverMoved"
        case .tripAlert: return "tripAlert"
        }
    }

    /// Reads a frame, failing with the offending `type` when it is not one of `types`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameKey.self)
        switch try container.frameType(accepting: Self.types) {
        case "hello": self = .hello(serverTime: try container.decode(Date.self, forKey: .serverTime))
        case "tripUpdated": self = .tripUpdated(try container.decode(Trip.self, forKey: .trip))
        case "tripAlert":
            self = .tripAlert(
                TripAlert(
                    kind: try container.decode(TripAlertKind.self, forKey: .kind),
                    since: try container.decode(Date.self, forKey: .since),
                    raisedAt: try container.decode(Date.self, forKey: .raisedAt)))
        default: self = .driverMoved(try DriverMoved(from: container))
        }
    }

    /// Writes the frame flat, `type` beside the fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let serverTime): try container.encode(serverTime, forKey: .serverTime)
        case .tripUpdated(let trip): try container.encode(trip, forKey: .trip)
        case .driverMoved(let moved): try moved.encode(into: &container)
        case .tripAlert(let alert):
            try container.encode(alert.kind, forKey: .kind)
            try container.encode(alert.since, forKey: .since)
            try container.encode(alert.raisedAt, forKey: .raisedAt)
        }
    }
}
