/// Why bytes are not a binary location batch, or a batch cannot be written as one.
public enum LocationBatchCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first byte is not a format this version reads.
    case unsupportedFormat(UInt8)
    /// The flags byte sets bits this version does not define.
    case reservedFlags(UInt8)
    /// The bytes end before the batch does; `offset` is where more was needed.
    case truncated(offset: Int)
    /// A varint runs past 64 bits.
    case overlongVarint(offset: Int)
    /// A varint has redundant trailing zero groups; only the shortest form is accepted, so
    /// every accepted input re-encodes to the same bytes.
    case nonCanonicalVarint(offset: Int)
    /// The point count is above `ProtocolLimits.maxPointsPerBatch`.
    case tooManyPoints(count: UInt64)
    /// A decoded value is outside what the format can carry (see `LocationBatchCodec.maxMagnitude`).
    case valueOutOfRange(field: LocationBatchCodec.Field, point: Int?, offset: Int)
    /// Bytes remain after the last point.
    case trailingBytes(offset: Int, count: Int)
    /// A value to encode is NaN or infinite.
    case notFinite(field: LocationBatchCodec.Field, point: Int?)
    /// A value to encode is too large in magnitude, or negative where it cannot be (`seq`).
    case unrepresentable(field: LocationBatchCodec.Field, point: Int?)

    /// One line for logs and 400 bodies.
    public var description: String {
        switch self {
        case .unsupportedFormat(let byte):
            return "unsupported batch format byte 0x\(String(byte, radix: 16)), expected 0xb1"
        case .reservedFlags(let flags): return "reserved flag bits set in 0x\(String(flags, radix: 16))"
        case .truncated(let offset): return "the batch ends early at byte \(offset)"
        case .overlongVarint(let offset): return "varint at byte \(offset) is longer than 64 bits"
        case .nonCanonicalVarint(let offset): return "varint at byte \(offset) is not in its shortest form"
        case .tooManyPoints(let count):
            return "\(count) points is more than the limit of \(ProtocolLimits.maxPointsPerBatch)"
        case .valueOutOfRange(let field, let point, let offset):
            return "\(Self.path(field, point)) at byte \(offset) is out of range"
        case .trailingBytes(let offset, let count): return "\(count) unexpected bytes after the batch at byte \(offset)"
        case .notFinite(let field, let point): return "\(Self.path(field, point)) is not a finite number"
        case .unrepresentable(let field, let point): return "\(Self.path(field, point)) cannot be represented"
        }
    }

    /// The field path in the JSON form of the batch, such as `points[3].lat`, when one field is at fault.
    public var field: String? {
        switch self {
        case .valueOutOfRange(let field, let point, _), .unrepresentable(let field, let point):
            return Self.path(field, point)
        case .notFinite(let field, let point):
            return Self.path(field, point)
        default:
            return nil
        }
    }

    /// The 400 a server answers with when a binary batch cannot be read.
    public var apiError: APIError {
        APIError(code: .invalidBody, message: "invalid binary location batch: \(description)", field: field)
    }

    private static func path(_ field: LocationBatchCodec.Field, _ point: Int?) -> String {
        guard let point else { return field.rawValue }
        return "points[\(point)].\(field.rawValue)"
    }
}
