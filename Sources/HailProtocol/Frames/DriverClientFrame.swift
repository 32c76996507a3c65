import Foundation
import HailCore

/// A text frame the driver app sends on `/v1/drivers/me/live`. Binary frames carry the same
/// batch in `LocationBatchCodec`'s format instead.
public enum DriverClientFrame: Codable, Sendable, Hashable, Validatable {
    /// A batch of fixes: `{"type": "location", "seq": 42, "points": [...], "backlog": true?, "noFix": true?,
    /// "sentAt": "..."?, "roundTrip": 0.12?}`.
    case location(LocationBatch)

    /// The `type` strings of this direction.
    public static let types = ["location"]

    /// The frame's `type` field.
    public var type: String {
        switch self {
        case .location: return "location"
        }
    }

    /// Reads a frame, failing with the offending `type` when it is not `location`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FrameKey.self)
        _ = try container.frameType(accepting: Self.types)
        self = .location(
            LocationBatch(
                seq: try container.decode(Int64.self, forKey: .seq),
                points: try container.decode([LocationPoint].self, forKey: .points),
                backlog: try container.decodeIfPresent(Bool.self, forKey: .backlog) ?? false,
                noFix: try container.decodeIfPresent(Bool.self, forKey: .noFix) ?? false,
                sentAt: try container.decodeIfPresent(Date.self, forKey: .sentAt),
                roundTrip: try container.decodeIfPresent(Double.self, forKey: .roundTrip)))
    }

    /// Writes the frame flat; `backlog` and `noFix` are left out when false, as in `LocationBatch`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FrameKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .location(let batch):
            try container.encode(batch.seq, forKey: .seq)
            try container.encode(batch.points, forKey: .points)
            if batch.backlog { try container.encode(true, forKey: .backlog) }
            if batch.noFix { try container.encode(true, forKey: .noFix) }
            try container.encodeIfPresent(batch.sentAt, forKey: .sentAt)
            try container.encodeIfPresent(batch.roundTrip, forKey: .roundTrip)
        }
    }

    /// Checks the batch with the same rules as `POST /v1/drivers/me/locations`.
    public func validate() throws(APIError) {
        switch self {
        case .location(let batch): try batch.validate()
        }
    }
}
