import Foundation
import HailCore

/// The compact text a driver's filter and published position are kept in, in their Redis hash.
///
/// Every location batch writes both, so their encoding is on the hot path of a scaled node: `JSONEncoder`
/// took a third of a node's CPU under a saturating load. This is a fixed list of numbers after a tag
/// (`f1:` and `p1:`), each Double in Swift's shortest round-trip form and each date as seconds since the
/// reference date, the form `Date` holds, so a stored filter compares exactly as the one written. Hashes
/// written before in JSON (they start with `{`) still read.
enum IngestStateText {
    private static let filterTag = "f1:"
    private static let positionTag = "p1:"

    /// `f1:` then the reference fix (lat, lng, accuracy, heading, speed, t; six empty fields when there is
    /// none) and the counts (accepted, invalid, poor accuracy, out of order, impossible speed).
    static func filter(_ filter: LocationFilter) -> String {
        var text = filterTag
        // One allocation for the whole text: each number's own text is small enough to be held inline.
        text.reserveCapacity(160)
        if let point = filter.lastAccepted {
            for value in [point.lat, point.lng, point.accuracy, point.heading, point.speed] {
                text.append(value.description)
                text.append(",")
            }
            text.append(point.t.timeIntervalSinceReferenceDate.description)
        } else {
            text.append(",,,,,")
        }
        let counts = filter.counts
        for count in [counts.accepted, counts.invalid, counts.poorAccuracy, counts.outOfOrder, counts.impossibleSpeed] {
            text.append(",")
            text.append(count.description)
        }
        return text
    }

    /// `p1:` then lat, lng, heading, seq and the time received.
    static func position(_ position: DriverLocation) -> String {
        var text = positionTag
        text.reserveCapacity(96)
        for value in [position.coordinate.lat, position.coordinate.lng, position.heading] {
            text.append(value.description)
            text.append(",")
        }
        text.append(position.seq.description)
        text.append(",")
        text.append(position.receivedAt.timeIntervalSinceReferenceDate.description)
        return text
    }

    /// The filter in `text`, either form.
    static func filter(from text: String) throws -> LocationFilter {
        guard text.hasPrefix(filterTag) else {
            return try JSONDecoder().decode(LocationFilter.self, from: Data(text.utf8))
        }
        let fields = try Self.fields(text, tag: filterTag, count: 11)
        var counts = LocationFilter.Counts()
        counts.accepted = try integer(fields[6], in: text)
        counts.invalid = try integer(fields[7], in: text)
        counts.poorAccuracy = try integer(fields[8], in: text)
        counts.outOfOrder = try integer(fields[9], in: text)
        counts.impossibleSpeed = try integer(fields[10], in: text)
        guard !fields[0].isEmpty else { return LocationFilter(lastAccepted: nil, counts: counts) }
        let numbers = try fields[0..<6].map { try number($0, in: text) }
        let point = LocationPoint(
            lat: numbers[0], lng: numbers[1], accuracy: numbers[2], heading: numbers[3], speed: numbers[4],
            t: Date(timeIntervalSinceReferenceDate: numbers[5]))
        return LocationFilter(lastAccepted: point, counts: counts)
    }

    /// The position in `text`, either form.
    static func position(from text: String) throws -> DriverLocation {
        guard text.hasPrefix(positionTag) else {
            return try JSONDecoder().decode(DriverLocation.self, from: Data(text.utf8))
        }
        let fields = try Self.fields(text, tag: positionTag, count: 5)
        guard let seq = Int64(fields[3]) else { throw RedisError.unexpected("a stored position has seq \(fields[3])") }
        return DriverLocation(
            coordinate: Coordinate(lat: try number(fields[0], in: text), lng: try number(fields[1], in: text)),
            heading: try number(fields[2], in: text), seq: seq,
            receivedAt: Date(timeIntervalSinceReferenceDate: try number(fields[4], in: text)))
    }

    private static func fields(_ text: String, tag: String, count: Int) throws -> [Substring] {
        let fields = text.dropFirst(tag.count).split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == count else {
            throw RedisError.unexpected("stored ingest state '\(text)' has \(fields.count) fields, not \(count)")
        }
        return fields
    }

    private static func number(_ field: Substring, in text: String) throws -> Double {
        guard let value = Double(field) else { throw RedisError.unexpected("stored ingest state '\(text)' is damaged") }
        return value
    }

    private static func integer(_ field: Substring, in text: String) throws -> Int {
        guard let value = Int(field) else { throw RedisError.unexpected("stored ingest state '\(text)' is damaged") }
        return value
    }
}
