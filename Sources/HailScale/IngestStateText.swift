import Foundation
import HailCore

/// The compact text a driver's filter and published position are kept in, in their Redis hash.
///
/// Every location batch writes both, so their encoding is on the hot path of a scaled node: `JSONEncoder`
/// took a third of a node's CPU under a saturating load, and Swift's shortest round-trip decimals still a
/// twentieth. This is a fixed list of fields after a tag (`f2:` and `p3:`): each Double as the 16 hex digits
/// of its bits, so it comes back exactly and costs a few shifts to write, each date as such a Double of seconds
/// since the reference date (the form `Date` holds), counts and seqs in decimal. What earlier versions wrote
/// still reads: `p2:` (a position without `fixedAt`), `f1:`/`p1:` with decimal Doubles, and JSON (it starts
/// with `{`).
enum IngestStateText {
    private static let filterTag = "f2:"
    private static let positionTag = "p3:"
    private static let positionWithoutFixTimeTag = "p2:"
    private static let decimalTags = (filter: "f1:", position: "p1:")

    /// `f2:` then the reference fix (lat, lng, accuracy, heading, speed, t; six empty fields when there is
    /// none) and the counts (accepted, invalid, poor accuracy, out of order, impossible speed).
    static func filter(_ filter: LocationFilter) -> String {
        var text = TextBytes(tag: filterTag, capacity: 160)
        if let point = filter.lastAccepted {
            text.hex(point.lat)
            text.hex(point.lng)
            text.hex(point.accuracy)
            text.hex(point.heading)
            text.hex(point.speed)
            text.hex(point.t.timeIntervalSinceReferenceDate, last: true)
        } else {
            text.raw(",,,,,")
        }
        let counts = filter.counts
        for count in [counts.accepted, counts.invalid, counts.poorAccuracy, counts.outOfOrder, counts.impossibleSpeed] {
            text.raw(",")
            text.decimal(Int64(count))
        }
        return text.string
    }

    /// `p3:` then lat, lng, heading, seq, the time received and the time the fix was taken (empty when unknown).
    static func position(_ position: DriverLocation) -> String {
        var text = TextBytes(tag: positionTag, capacity: 112)
        text.hex(position.coordinate.lat)
        text.hex(position.coordinate.lng)
        text.hex(position.heading)
        text.decimal(position.seq)
        text.raw(",")
        text.hex(position.receivedAt.timeIntervalSinceReferenceDate)
        if let fixedAt = position.fixedAt { text.hex(fixedAt.timeIntervalSinceReferenceDate, last: true) }
        return text.string
    }

    /// The filter in `text`, either form.
    static func filter(from text: String) throws -> LocationFilter {
        let hex = text.hasPrefix(filterTag)
        guard hex || text.hasPrefix(decimalTags.filter) else {
            return try JSONDecoder().decode(LocationFilter.self, from: Data(text.utf8))
        }
        let fields = try Self.fields(text, tag: filterTag, count: 11)
        let number = { (field: Substring) in try Self.number(field, hex: hex, in: text) }
        var counts = LocationFilter.Counts()
        counts.accepted = try integer(fields[6], in: text)
        counts.invalid = try integer(fields[7], in: text)
        counts.poorAccuracy = try integer(fields[8], in: text)
        counts.outOfOrder = try integer(fields[9], in: text)
        counts.impossibleSpeed = try integer(fields[10], in: text)
        guard !fields[0].isEmpty else { return LocationFilter(lastAccepted: nil, counts: counts) }
        let numbers = try fields[0..<6].map(number)
        let point = LocationPoint(
            lat: numbers[0], lng: numbers[1], accuracy: numbers[2], heading: numbers[3], speed: numbers[4],
            t: Date(timeIntervalSinceReferenceDate: numbers[5]))
        return LocationFilter(lastAccepted: point, counts: counts)
    }

    /// The position in `text`, any form.
    static func position(from text: String) throws -> DriverLocation {
        let withFixTime = text.hasPrefix(positionTag)
        let hex = withFixTime || text.hasPrefix(positionWithoutFixTimeTag)
        guard hex || text.hasPrefix(decimalTags.position) else {
            return try JSONDecoder().decode(DriverLocation.self, from: Data(text.utf8))
        }
        // Every tag is three characters long.
        let fields = try Self.fields(text, tag: positionTag, count: withFixTime ? 6 : 5)
        let number = { (field: Substring) in try Self.number(field, hex: hex, in: text) }
        guard let seq = Int64(fields[3]) else { throw RedisError.unexpected("a stored position has seq \(fields[3])") }
        let fixedAt =
            withFixTime && !fields[5].isEmpty ? Date(timeIntervalSinceReferenceDate: try number(fields[5])) : nil
        return DriverLocation(
            coordinate: Coordinate(lat: try number(fields[0]), lng: try number(fields[1])),
            heading: try number(fields[2]), seq: seq,
            receivedAt: Date(timeIntervalSinceReferenceDate: try number(fields[4])), fixedAt: fixedAt)
    }

    private static func fields(_ text: String, tag: String, count: Int) throws -> [Substring] {
        let fields = text.dropFirst(tag.count).split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == count else {
            throw RedisError.unexpected("stored ingest state '\(text)' has \(fields.count) fields, not \(count)")
        }
        return fields
    }

    private static func number(_ field: Substring, hex: Bool, in text: String) throws -> Double {
        let value =
            hex
            ? (field.utf8.count == 16 ? UInt64(field, radix: 16).map(Double.init(bitPattern:)) : nil) : Double(field)
        guard let value else { throw RedisError.unexpected("stored ingest state '\(text)' is damaged") }
        return value
    }

    private static func integer(_ field: Substring, in text: String) throws -> Int {
        guard let value = Int(field) else { throw RedisError.unexpected("stored ingest state '\(text)' is damaged") }
        return value
    }
}

/// The bytes of one `IngestStateText` being written, turned into a String once at the end.
private struct TextBytes {
    private var bytes: [UInt8] = []

    init(tag: String, capacity: Int) {
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: tag.utf8)
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The 16 lowercase hex digits of `value`'s bits, then a comma unless it is the last field.
    mutating func hex(_ value: Double, last: Bool = false) {
        let bits = value.bitPattern
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: bits >> UInt64(shift)) & 0xF
            bytes.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
        if !last { bytes.append(UInt8(ascii: ",")) }
    }

    mutating func decimal(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }
}
