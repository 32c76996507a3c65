import Foundation
import HailCore

/// A frame the server sends on the driver stream `/v1/drivers/me/live`.
public enum DriverServerFrame: Codable, Sendable, Hashable {
    /// First frame on every connection: the server's clock.
    case hello(serverTime: Date)
    /// A trip is offered to this driver until `expiresAt`.
    case offer(TripOffer)
    /// A trip assigned to this driver changed.
    case tripUpdated(Trip)
    /// The server applied location batches up to this seq: `{"type": "ack", "seq": 42}`.
    case ack(LocationAck)
    /// The offer of `tripID` is gone (it lapsed, or the trip stopped searching): the app stops showing it, and an
    /// accept would be refused: `{"type": "offerWithdrawn", "tripID": "t-1"}`.
    case offerWithdrawn(tripID: String)

    /// The `type` strings of this direction, in declaration order.
    public static let types = ["hello", "offer", "tripUpdated", "ack", "offerWithdrawn"]

    /// The frame's `type` field.
    public var type: String {
        switch self {
        case .hello: return "hello"
        case .offer: return "offer"
        case .tripUpdated: return "tripUpdated"
        case .ack: return "ack"
        case .offerWithdrawn: return "offerWithdrawn"
        }
    }

    /// Reads a frame, failing with the offending `type` when it is not one of `types`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameKey.self)
        switch try container.frameType(accepting: Self.types) {
        case "hello":
            self = .hello(serverTime: try container.decode(Date.self, forKey: .serverTime))
        case "offer":
            self = .offer(
                TripOffer(
                    trip: try container.decode(Trip.self, forKey: .trip),
                    expiresAt: try container.decode(Date.self, forKey: .expiresAt)))
        case "tripUpdated":
            self = .tripUpdated(try container.decode(Trip.self, forKey: .trip))
        case "offerWithdrawn":
            self = .offerWithdrawn(tripID: try container.decode(String.self, forKey: .tripID))
        default:
            self = .ack(LocationAck(seq: try container.decode(Int64.self, forKey: .seq)))
        }
    }

    /// Writes the frame flat, `type` beside the fields.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let serverTime):
            try container.encode(serverTime, forKey: .serverTime)
        case .offer(let offer):
            try container.encode(offer.trip, forKey: .trip)
            try container.encode(offer.expiresAt, forKey: .expiresAt)
        case .tripUpdated(let trip):
            try container.encode(trip, forKey: .trip)
        case .ack(let ack):
            try container.encode(ack.seq, forKey: .seq)
        case .offerWithdrawn(let tripID):
            try container.encode(tripID, forKey: .tripID)
        }
    }
}

extension DriverServerFrame {
    /// The `ack` frame for `seq` exactly as `HailJSON` writes it (sorted keys), built without an encoder:
    /// the server writes one per location batch, tens of thousands a second.
    public static func encodedAck(seq: Int64) -> String {
        #"{"seq":"# + String(seq) + #","type":"ack"}"#
    }
}
