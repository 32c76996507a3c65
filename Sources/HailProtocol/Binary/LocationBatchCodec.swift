import Foundation
import HailCore

/// The compact binary form of a `LocationBatch`, for WebSocket binary frames and
/// `POST /v1/drivers/me/locations` with `Content-Type: application/vnd.hail.location-batch`.
///
/// Layout (docs/PROTOCOL.md has it byte by byte): a format byte `0xB1`, a flags byte (bit 0 =
/// backlog, bit 1 = no fix, bit 2 = sent time, bit 3 = round trip), `seq` as an unsigned LEB128 varint, the point count as a
/// varint, then six zigzag varints per point: latitude and longitude in 1e-7 degrees, accuracy in decimetres,
/// heading in tenths of a degree, speed in cm/s and `t` in milliseconds since 1970. The first point is
/// absolute; each later point is the difference from the one before, which is what makes a
/// batch of nearby fixes a few bytes per point. With bit 2, one more zigzag varint ends the batch: `sentAt`
/// in milliseconds after the last point's `t` (after 1970 when there is no point). With bit 3, an unsigned varint
/// follows it: `roundTrip` in whole milliseconds, at most `ProtocolLimits.maxRoundTripSeconds`.
///
/// Round trip: `decode(encode(b)) == quantized(b)`, and `encode(decode(bytes)) == bytes` for
/// every input `decode` accepts (varints must be in their shortest form, trailing bytes and
/// unknown flags are refused).
public enum LocationBatchCodec {
    /// The first byte: format 0xB ("batch"), version 1.
    public static let formatByte: UInt8 = 0xB1
    /// Bit 0 of the flags byte: the points are history from the offline buffer.
    public static let backlogFlag: UInt8 = 0x01
    /// Bit 1 of the flags byte: the phone has no fix, and the one point repeats its last.
    public static let noFixFlag: UInt8 = 0x02
    /// Bit 2 of the flags byte: the batch ends with when the phone sent it.
    public static let sentAtFlag: UInt8 = 0x04
    /// Bit 3 of the flags byte: the batch ends with the phone's quickest recent round trip.
    public static let roundTripFlag: UInt8 = 0x08
    /// Every flag bit this version defines; the others must be 0.
    static let knownFlags = backlogFlag | noFixFlag | sentAtFlag | roundTripFlag
    /// Every quantized value, absolute, lies strictly within ±2^48. That keeps deltas inside 64 bits,
    /// and keeps scaling exact enough that a decoded value re-encodes to the same integer.
    public static let maxMagnitude: Int64 = 1 << 48
    /// The fewest bytes one point takes (six one-byte varints); used to refuse counts the input cannot hold.
    static let minimumBytesPerPoint = 6

    /// A quantity the codec carries, with its unit.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        /// The batch sequence number, a plain varint.
        case seq
        /// Latitude, in 1e-7 degrees.
        case lat
        /// Longitude, in 1e-7 degrees.
        case lng
        /// Accuracy, in decimetres.
        case accuracy
        /// Heading, in tenths of a degree (negative stays negative: unknown).
        case heading
        /// Speed, in centimetres per second (negative stays negative: unknown).
        case speed
        /// Fix time, in milliseconds since 1970-01-01T00:00:00Z.
        case t
        /// When the batch was sent, in milliseconds (after the last point's `t` on the wire).
        case sentAt
        /// The phone's quickest recent round trip, in whole milliseconds.
        case roundTrip

        /// How many codec units make one wire unit (degree, metre, second...).
        public var scale: Double {
            switch self {
            case .seq: return 1
            case .lat, .lng: return 10_000_000
            case .accuracy, .heading: return 10
            case .speed: return 100
            case .t, .sentAt, .roundTrip: return 1000
            }
        }

        /// The per-point fields in the order they are written.
        static let pointFields: [Field] = [.lat, .lng, .accuracy, .heading, .speed, .t]
    }

    /// The binary form of `batch`. Throws for NaN or infinite values, magnitudes past the format's
    /// range, a negative seq, or more than `ProtocolLimits.maxPointsPerBatch` points.
    public static func encode(_ batch: LocationBatch) throws(LocationBatchCodecError) -> Data {
        Data(try encodeBytes(batch))
    }

    /// The binary form of `batch` as bytes.
    public static func encodeBytes(_ batch: LocationBatch) throws(LocationBatchCodecError) -> [UInt8] {
        guard batch.seq >= 0 else { throw .unrepresentable(field: .seq, point: nil) }
        guard batch.points.count <= ProtocolLimits.maxPointsPerBatch else {
            throw .tooManyPoints(count: UInt64(batch.points.count))
        }
        var output = [UInt8]()
        output.reserveCapacity(12 + batch.points.count * 16)
        output.append(formatByte)
        output.append(
            (batch.backlog ? backlogFlag : 0) | (batch.noFix ? noFixFlag : 0) | (batch.sentAt == nil ? 0 : sentAtFlag)
                | (batch.roundTrip == nil ? 0 : roundTripFlag))
        appendVarint(UInt64(batch.seq), to: &output)
        appendVarint(UInt64(batch.points.count), to: &output)
        var previous = [Int64](repeating: 0, count: Field.pointFields.count)
        for (index, point) in batch.points.enumerated() {
            let values = try quantize(point, index: index)
            for field in 0..<values.count {
                // Both values are within ±2^48, so the difference cannot overflow.
                appendVarint(zigzag(values[field] - previous[field]), to: &output)
            }
            previous = values
        }
        if let sentAt = batch.sentAt {
            let sent = try quantize(sentAt)
            // Both within ±2^48: the difference cannot overflow.
            appendVarint(zigzag(sent - (batch.points.isEmpty ? 0 : previous[5])), to: &output)
        }
        if let roundTrip = batch.roundTrip { appendVarint(UInt64(try quantize(roundTrip: roundTrip)), to: &output) }
        return output
    }

    /// The batch in `data`, or a typed error; never traps and never allocates more than the input justifies.
    public static func decode(_ data: Data) throws(LocationBatchCodecError) -> LocationBatch {
        try decode(bytes: [UInt8](data))
    }

    /// The batch in `bytes`, or a typed error.
    public static func decode(bytes: [UInt8]) throws(LocationBatchCodecError) -> LocationBatch {
        var reader = ByteReader(bytes: bytes)
        let format = try reader.byte()
        guard format == formatByte else { throw .unsupportedFormat(format) }
        let flags = try reader.byte()
        guard flags & ~knownFlags == 0 else { throw .reservedFlags(flags) }
        let seqOffset = reader.offset
        let seq = try reader.varint()
        guard seq <= UInt64(Int64.max) else { throw .valueOutOfRange(field: .seq, point: nil, offset: seqOffset) }
        let count = try reader.varint()
        guard count <= UInt64(ProtocolLimits.maxPointsPerBatch) else { throw .tooManyPoints(count: count) }
        let pointCount = Int(count)
        guard pointCount * minimumBytesPerPoint <= reader.remaining else {
            throw .truncated(offset: bytes.count)
        }
        var points = [LocationPoint]()
        points.reserveCapacity(pointCount)
        var values = [Int64](repeating: 0, count: Field.pointFields.count)
        for index in 0..<pointCount {
            for (position, field) in Field.pointFields.enumerated() {
                let offset = reader.offset
                let delta = unzigzag(try reader.varint())
                let (sum, overflow) = values[position].addingReportingOverflow(delta)
                guard !overflow, sum > -maxMagnitude, sum < maxMagnitude else {
                    throw .valueOutOfRange(field: field, point: index, offset: offset)
                }
                values[position] = sum
            }
            points.append(point(from: values))
        }
        var sentAt: Date?
        if flags & sentAtFlag != 0 {
            let offset = reader.offset
            let delta = unzigzag(try reader.varint())
            let (sum, overflow) = (pointCount == 0 ? 0 : values[5]).addingReportingOverflow(delta)
            guard !overflow, sum > -maxMagnitude, sum < maxMagnitude else {
                throw .valueOutOfRange(field: .sentAt, point: nil, offset: offset)
            }
            sentAt = Date(timeIntervalSince1970: Double(sum) / Field.sentAt.scale)
        }
        var roundTrip: TimeInterval?
        if flags & roundTripFlag != 0 {
            let offset = reader.offset
            let milliseconds = try reader.varint()
            guard milliseconds <= UInt64(ProtocolLimits.maxRoundTripSeconds * Field.roundTrip.scale) else {
                throw .valueOutOfRange(field: .roundTrip, point: nil, offset: offset)
            }
            roundTrip = Double(milliseconds) / Field.roundTrip.scale
        }
        guard reader.remaining == 0 else {
            throw .trailingBytes(offset: reader.offset, count: reader.remaining)
        }
        return LocationBatch(
            seq: Int64(seq), points: points, backlog: flags & backlogFlag != 0, noFix: flags & noFixFlag != 0,
            sentAt: sentAt, roundTrip: roundTrip)
    }

    /// `batch` at the codec's precision: what `decode(encode(batch))` returns.
    public static func quantized(_ batch: LocationBatch) throws(LocationBatchCodecError) -> LocationBatch {
        guard batch.seq >= 0 else { throw .unrepresentable(field: .seq, point: nil) }
        var points = [LocationPoint]()
        points.reserveCapacity(batch.points.count)
        for (index, point) in batch.points.enumerated() {
            points.append(self.point(from: try quantize(point, index: index)))
        }
        let sentAt = try batch.sentAt.map { (date) throws(LocationBatchCodecError) in
            Date(timeIntervalSince1970: Double(try quantize(date)) / Field.sentAt.scale)
        }
        let roundTrip = try batch.roundTrip.map { (seconds) throws(LocationBatchCodecError) in
            Double(try quantize(roundTrip: seconds)) / Field.roundTrip.scale
        }
        return LocationBatch(
            seq: batch.seq, points: points, backlog: batch.backlog, noFix: batch.noFix, sentAt: sentAt,
            roundTrip: roundTrip)
    }

    /// `seconds` of round trip in whole milliseconds, 0 to `ProtocolLimits.maxRoundTripSeconds`.
    private static func quantize(roundTrip seconds: TimeInterval) throws(LocationBatchCodecError) -> Int64 {
        guard seconds.isFinite else { throw .notFinite(field: .roundTrip, point: nil) }
        let scaled = (seconds * Field.roundTrip.scale).rounded()
        guard scaled >= 0, scaled <= ProtocolLimits.maxRoundTripSeconds * Field.roundTrip.scale else {
            throw .unrepresentable(field: .roundTrip, point: nil)
        }
        return Int64(scaled)
    }

    /// `date` in whole milliseconds since 1970, within the format's range.
    private static func quantize(_ date: Date) throws(LocationBatchCodecError) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw .notFinite(field: .sentAt, point: nil) }
        let scaled = (seconds * Field.sentAt.scale).rounded()
        guard abs(scaled) < Double(maxMagnitude) else { throw .unrepresentable(field: .sentAt, point: nil) }
        return Int64(scaled)
    }

    private static func quantize(_ point: LocationPoint, index: Int) throws(LocationBatchCodecError) -> [Int64] {
        let raw = [point.lat, point.lng, point.accuracy, point.heading, point.speed, point.t.timeIntervalSince1970]
        var values = [Int64]()
        values.reserveCapacity(raw.count)
        for (value, field) in zip(raw, Field.pointFields) {
            guard value.isFinite else { throw .notFinite(field: field, point: index) }
            let scaled = (value * field.scale).rounded()
            guard abs(scaled) < Double(maxMagnitude) else { throw .unrepresentable(field: field, point: index) }
            values.append(Int64(scaled))
        }
        return values
    }

    private static func point(from values: [Int64]) -> LocationPoint {
        LocationPoint(
            lat: Double(values[0]) / Field.lat.scale,
            lng: Double(values[1]) / Field.lng.scale,
            accuracy: Double(values[2]) / Field.accuracy.scale,
            heading: Double(values[3]) / Field.heading.scale,
            speed: Double(values[4]) / Field.speed.scale,
            t: Date(timeIntervalSince1970: Double(values[5]) / Field.t.scale))
    }

    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }

    static func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }

    /// A cursor over the input that checks every read against its end.
    struct ByteReader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        mutating func byte() throws(LocationBatchCodecError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// An unsigned LEB128 varint in its shortest form.
        mutating func varint() throws(LocationBatchCodecError) -> UInt64 {
            let start = offset
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let current = try byte()
                let payload = UInt64(current & 0x7F)
                // The tenth group holds bit 63 alone; anything more does not fit in 64 bits.
                guard shift < 63 || payload <= 1 else { throw .overlongVarint(offset: start) }
                value |= payload << shift
                if current & 0x80 == 0 {
                    guard current != 0 || offset - start == 1 else { throw .nonCanonicalVarint(offset: start) }
                    return value
                }
                shift += 7
                guard shift <= 63 else { throw .overlongVarint(offset: start) }
            }
        }
    }
}
