/// A bounds-checked reader of protobuf wire format over a slice of a byte array.
///
/// Only what OSM PBF needs: varints (plain, zigzag), length-delimited fields and skipping fixed32/64.
/// Every read checks the slice's end first, so hostile bytes end in a `PBFError`, never a trap.
struct ProtobufReader {
    /// The protobuf wire types (group start/end are deprecated and rejected).
    enum WireType: Int {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    let bytes: [UInt8]
    private(set) var position: Int
    let end: Int

    /// A reader over `bytes[range]`; the range must already lie inside `bytes`.
    init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    /// A reader over the whole array.
    init(_ bytes: [UInt8]) { self.init(bytes, range: 0..<bytes.count) }

    var isAtEnd: Bool { position >= end }

    mutating func readVarint() throws(PBFError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = position
        while true {
            guard position < end else { throw PBFError.malformedVarint(offset: start) }
            let byte = bytes[position]
            position += 1
            // The tenth byte may carry only the top bit of a 64-bit value.
            if shift == 63 && byte > 1 { throw PBFError.malformedVarint(offset: start) }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw PBFError.malformedVarint(offset: start) }
        }
    }

    mutating func readSignedVarint() throws(PBFError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// The next field's number and wire type, or nil at the end of the message.
    mutating func readTag() throws(PBFError) -> (field: Int, wireType: WireType)? {
        guard !isAtEnd else { return nil }
        let offset = position
        let key = try readVarint()
        guard let wireType = WireType(rawValue: Int(key & 7)) else {
            throw PBFError.unsupportedWireType(Int(key & 7), offset: offset)
        }
        let field = key >> 3
        guard field > 0, field < (1 << 29) else { throw PBFError.invalidField("field number \(field)") }
        return (Int(field), wireType)
    }

    /// The byte range of a length-delimited field's payload, after which the reader stands.
    mutating func readLengthDelimited(_ what: String) throws(PBFError) -> Range<Int> {
        let offset = position
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw PBFError.truncated(offset: offset, what: what) }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    /// A reader over a nested message's bytes.
    mutating func readMessage(_ what: String) throws(PBFError) -> ProtobufReader {
        ProtobufReader(bytes, range: try readLengthDelimited(what))
    }

    mutating func readString(_ what: String) throws(PBFError) -> String {
        String(decoding: bytes[try readLengthDelimited(what)], as: UTF8.self)
    }

    /// Skips a field this reader does not need.
    mutating func skip(_ wireType: WireType) throws(PBFError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .lengthDelimited: _ = try readLengthDelimited("skipped field")
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        }
    }

    private mutating func advance(_ count: Int) throws(PBFError) {
        guard end - position >= count else { throw PBFError.truncated(offset: position, what: "fixed field") }
        position += count
    }

    /// Appends a repeated varint field, packed (wire type 2) or not (wire type 0), as unsigned values.
    mutating func appendVarints(_ wireType: WireType, to values: inout [UInt64]) throws(PBFError) {
        switch wireType {
        case .varint: values.append(try readVarint())
        case .lengthDelimited:
            var packed = try readMessage("packed varints")
            while !packed.isAtEnd { values.append(try packed.readVarint()) }
        default: throw PBFError.invalidField("repeated varint with wire type \(wireType.rawValue)")
        }
    }

    /// Appends a repeated zigzag (sint64) field, packed or not.
    mutating func appendSignedVarints(_ wireType: WireType, to values: inout [Int64]) throws(PBFError) {
        switch wireType {
        case .varint: values.append(try readSignedVarint())
        case .lengthDelimited:
            var packed = try readMessage("packed sint64")
            while !packed.isAtEnd { values.append(try packed.readSignedVarint()) }
        default: throw PBFError.invalidField("repeated sint64 with wire type \(wireType.rawValue)")
        }
    }
}
