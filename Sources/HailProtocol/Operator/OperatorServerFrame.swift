import Foundation
import HailCore

/// A frame the server sends on the operator's stream `/v1/fleet/live`: hello, a snapshot of the fleet,
/// then at most one of each delta kind per tick of the server's fleet feed.
public enum OperatorServerFrame: Codable, Sendable, Hashable {
    /// First frame: the server's clock, for the page's clock offset (position ages).
    case hello(serverTime: Date)
    /// The whole fleet at `at`, sent once before any delta: every car and every active trip.
    case fleetSnapshot(at: Date, cars: [OperatorCar], trips: [OperatorTrip], stats: FleetStats)
    /// Essential changes since the last frame: cars new or changed beyond their position (online, degraded,
    /// trip), cars gone from the map, trips changed (a final state is sent once, then the trip is gone).
    case fleetChanged(at: Date, cars: [OperatorCar], carsGone: [String], trips: [OperatorTrip])
    /// Disposable: cars that only moved. A viewer that reads slowly may lose one; the next replaces it.
    case carsMoved(at: Date, moves: [OperatorCarMove])
    /// Disposable: the live numbers.
    case fleetStats(at: Date, stats: FleetStats)

    /// The `type` strings of this direction, in declaration order.
    public static let types = ["hello", "fleetSnapshot", "fleetChanged", "carsMoved", "fleetStats"]

    private enum Key: String, CodingKey {
        case type, serverTime, at, cars, trips, stats, carsGone, moves
    }

    /// The frame's `type` field.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .fleetSnapshot: return "fleetSnapshot"
        case .fleetChanged: return "fleetChanged"
        case .carsMoved: return "carsMoved"
        case .fleetStats: return "fleetStats"
        }
    }

    /// Reads a frame, failing with the offending `type` when it is not one of `types`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "hello":
            self = .hello(serverTime: try container.decode(Date.self, forKey: .serverTime))
        case "fleetSnapshot":
            self = .fleetSnapshot(
                at: try container.decode(Date.self, forKey: .at),
                cars: try container.decode([OperatorCar].self, forKey: .cars),
                trips: try container.decode([OperatorTrip].self, forKey: .trips),
                stats: try container.decode(FleetStats.self, forKey: .stats))
        case "fleetChanged":
            self = .fleetChanged(
                at: try container.decode(Date.self, forKey: .at),
                cars: try container.decode([OperatorCar].self, forKey: .cars),
                carsGone: try container.decode([String].self, forKey: .carsGone),
                trips: try container.decode([OperatorTrip].self, forKey: .trips))
        case "carsMoved":
            self = .carsMoved(
                at: try container.decode(Date.self, forKey: .at),
                moves: try container.decode([OperatorCarMove].self, forKey: .moves))
        case "fleetStats":
            self = .fleetStats(
                at: try container.decode(Date.self, forKey: .at),
                stats: try container.decode(FleetStats.self, forKey: .stats))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription:
                    "unknown frame type \"\(type.prefix(40))\"; expected one of \(Self.types.joined(separator: ", "))")
        }
    }

    /// Writes the frame flat, `type` beside the fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let serverTime):
            try container.encode(serverTime, forKey: .serverTime)
        case .fleetSnapshot(let at, let cars, let trips, let stats):
            try container.encode(at, forKey: .at)
            try container.encode(cars, forKey: .cars)
            try container.encode(trips, forKey: .trips)
            try container.encode(stats, forKey: .stats)
        case .fleetChanged(let at, let cars, let carsGone, let trips):
            try container.encode(at, forKey: .at)
            try container.encode(cars, forKey: .cars)
            try container.encode(carsGone, forKey: .carsGone)
            try container.encode(trips, forKey: .trips)
        case .carsMoved(let at, let moves):
            try container.encode(at, forKey: .at)
            try container.encode(moves, forKey: .moves)
        case .fleetStats(let at, let stats):
            try container.encode(at, forKey: .at)
            try container.encode(stats, forKey: .stats)
        }
    }
}
