/// Every key a WebSocket frame may carry. Frames are flat (`type` beside the fields), so one key
/// set serves all of them and each frame reads only the keys its type defines.
enum FrameKey: String, CodingKey {
    case type, serverTime, trip, seq, coordinate, heading, receivedAt, fixedAt, etaSeconds, etaTarget, path, points
    case backlog, noFix, sentAt, roundTrip, expiresAt, tripID, kind, since, raisedAt
}

extension KeyedDecodingContainer where Key == FrameKey {
    /// The `type` field, checked against the types this direction knows.
    func frameType(accepting known: [String]) throws -> String {
        let type = try decode(String.self, forKey: .type)
        guard known.contains(type) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: self,
                debugDescription:
                    "unknown frame type \"\(type.prefix(40))\"; expected one of \(known.joined(separator: ", "))")
        }
        return type
    }
}
