/// Google's encoded polyline format: a compact ASCII string for a list of coordinates.
///
/// Each coordinate is the signed difference from the previous one, scaled by 10^precision,
/// zig-zag encoded and written as 5-bit chunks offset by 63. Precision 5 is Google's default
/// (about 1 m); OSRM and Valhalla also use 6.
public enum Polyline {
    /// Why a string is not an encoded polyline.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The offset of the first character that could not be read.
        public let offset: Int
        /// What was expected there.
        public let reason: String
        /// Creates an error at `offset`.
        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }

        /// A one-line explanation for logs and error bodies.
        public var description: String { "invalid polyline at offset \(offset): \(reason)" }
    }

    /// Encodes `coordinates` at `precision` decimal digits.
    public static func encode(_ coordinates: [Coordinate], precision: Int = 5) -> String {
        let factor = scale(precision)
        var output = [UInt8]()
        output.reserveCapacity(coordinates.count * 8)
        var previousLat = 0
        var previousLng = 0
        for coordinate in coordinates {
            let lat = Int((coordinate.lat * factor).rounded())
            let lng = Int((coordinate.lng * factor).rounded())
            appendValue(lat - previousLat, to: &output)
            appendValue(lng - previousLng, to: &output)
            previousLat = lat
            previousLng = lng
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes a polyline encoded at `precision`, or throws naming the first bad character.
    public static func decode(_ encoded: String, precision: Int = 5) throws(DecodingError) -> [Coordinate] {
        let bytes = Array(encoded.utf8)
        let factor = scale(precision)
        var coordinates = [Coordinate]()
        var index = 0
        var lat = 0
        var lng = 0
        while index < bytes.count {
            lat += try readValue(bytes, at: &index)
            guard index < bytes.count else {
                throw DecodingError(offset: index, reason: "a latitude without its longitude")
            }
            lng += try readValue(bytes, at: &index)
            coordinates.append(Coordinate(lat: Double(lat) / factor, lng: Double(lng) / factor))
        }
        return coordinates
    }

    private static func scale(_ precision: Int) -> Double {
        var factor = 1.0
        for _ in 0..<max(0, precision) { factor *= 10 }
        return factor
    }

    private static func appendValue(_ value: Int, to output: inout [UInt8]) {
        var zigzag = UInt(bitPattern: value << 1)
        if value < 0 { zigzag = ~zigzag }
        while zigzag >= 0x20 {
            output.append(UInt8((0x20 | (zigzag & 0x1f)) + 63))
            zigzag >>= 5
        }
        output.append(UInt8(zigzag + 63))
    }

    private static func readValue(_ bytes: [UInt8], at index: inout Int) throws(DecodingError) -> Int {
        var result: UInt = 0
        var shift: UInt = 0
        while true {
            guard index < bytes.count else {
                throw DecodingError(offset: index, reason: "the string ends inside a value")
            }
            let byte = bytes[index]
            guard byte >= 63, byte < 127 else {
                throw DecodingError(offset: index, reason: "character outside the polyline alphabet")
            }
            // A 64-bit value needs at most 13 chunks of 5 bits; more means garbage, not a number.
            guard shift < 64 else { throw DecodingError(offset: index, reason: "value too long") }
            let chunk = UInt(byte - 63)
            result |= (chunk & 0x1f) << shift
            shift += 5
            index += 1
            if chunk < 0x20 { break }
        }
        let magnitude = Int(bitPattern: result >> 1)
        return result & 1 == 1 ? ~magnitude : magnitude
    }
}
