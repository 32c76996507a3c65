import HailRoads
import Testing

/// Builds PBF bytes by hand (framing, protobuf fields) for the reader's tests.
enum PBFFixtures {
    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    static func field(_ number: Int, bytes: [UInt8]) -> [UInt8] {
        varint(UInt64(number << 3 | 2)) + varint(UInt64(bytes.count)) + bytes
    }

    static func varintField(_ number: Int, _ value: Int64) -> [UInt8] {
        varint(UInt64(number << 3)) + varint(UInt64(bitPattern: value))
    }

    static func packed(_ values: [UInt64]) -> [UInt8] { values.flatMap(varint) }

    static func packedSigned(_ values: [Int64]) -> [UInt8] { values.flatMap { varint(zigzag($0)) } }

    static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func blobHeader(type: String, dataSize: Int64) -> [UInt8] {
        field(1, bytes: Array(type.utf8)) + varintField(3, dataSize)
    }

    static func block(type: String, blob: [UInt8]) -> [UInt8] {
        let header = blobHeader(type: type, dataSize: Int64(blob.count))
        return bigEndian(header.count) + header + blob
    }

    static func rawBlock(type: String, content: [UInt8]) -> [UInt8] {
        block(type: type, blob: field(1, bytes: content))
    }

    /// The offset just past the block that starts at `offset` (length, header, blob).
    static func blockEnd(_ bytes: [UInt8], after offset: Int) -> Int {
        let headerLength = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        var index = offset + 4
        let end = index + headerLength
        var dataSize = 0
        while index < end {
            let key = bytes[index]
            index += 1
            if key == 0x0a {
                index += Int(bytes[index]) + 1
            } else if key == 0x18 {
                var shift = 0
                while true {
                    let byte = bytes[index]
                    index += 1
                    dataSize |= Int(byte & 0x7f) << shift
                    shift += 7
                    if byte < 0x80 { break }
                }
            }
        }
        return end + dataSize
    }

    /// The uncompressed content of the first data block.
    static func firstDataBlock(_ bytes: [UInt8]) throws -> [UInt8] {
        try #require(try OSMPBFReader.blocks(bytes).first { $0.type == "OSMData" }).content
    }
}
