import Foundation
import HailCore

/// Reads a GPS trace in the Barefoot map matcher's JSON format into the driver's `LocationPoint`s.
///
/// The format is an array of `{"point": "POINT(lon lat)", "time": "2014-09-10 06:54:07+0200", "id": ...}`.
/// It has no accuracy, heading or speed, so the loader fills them in: a fixed accuracy, the bearing to the
/// next point (unknown, -1, when the next point is in the same place), and the speed over the segment
/// from the previous point (for the first point, to the next one).
public enum BarefootTrace {
    /// Why a trace file could not be read.
    public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The index of the bad element.
        public let index: Int
        /// What was wrong with it.
        public let reason: String
        /// A one-line explanation.
        public var description: String { "trace element \(index): \(reason)" }
    }

    /// The real Munich drive used across the tests: 1,194 fixes at 1 Hz, or nil when the shared data is absent.
    public static func munich() throws -> [LocationPoint]? {
        guard let url = SharedData.file("traces/barefoot-munich/x0001-001.json") else { return nil }
        return try load(contentsOf: url)
    }

    /// The points of the trace at `url`, each given `accuracy` metres.
    public static func load(contentsOf url: URL, accuracy: Double = 5) throws -> [LocationPoint] {
        try parse(Data(contentsOf: url), accuracy: accuracy)
    }

    /// The points of a trace held in `data`, each given `accuracy` metres.
    public static func parse(_ data: Data, accuracy: Double = 5) throws -> [LocationPoint] {
        let records = try JSONDecoder().decode([Record].self, from: data)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ssZ"
        var fixes: [(coordinate: Coordinate, time: Date)] = []
        fixes.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            guard let coordinate = coordinate(record.point) else {
                throw FormatError(index: index, reason: "point is not POINT(lon lat): \(record.point)")
            }
            guard let time = formatter.date(from: record.time) else {
                throw FormatError(index: index, reason: "time is not yyyy-MM-dd HH:mm:ss+hhmm: \(record.time)")
            }
            fixes.append((coordinate, time))
        }
        return fixes.indices.map { index in
            let here = fixes[index]
            var heading = -1.0
            if index + 1 < fixes.count, here.coordinate != fixes[index + 1].coordinate {
                heading = here.coordinate.bearing(to: fixes[index + 1].coordinate)
            }
            let speed: Double
            if index > 0 {
                speed = segmentSpeed(from: fixes[index - 1], to: here)
            } else if fixes.count > 1 {
                speed = segmentSpeed(from: here, to: fixes[1])
            } else {
                speed = -1
            }
            return LocationPoint(
                lat: here.coordinate.lat,
                lng: here.coordinate.lng,
                accuracy: accuracy,
                heading: heading,
                speed: speed,
                t: here.time
            )
        }
    }

    private struct Record: Decodable {
        let point: String
        let time: String
    }

    private static func coordinate(_ wkt: String) -> Coordinate? {
        guard wkt.hasPrefix("POINT("), wkt.hasSuffix(")") else { return nil }
        let parts = wkt.dropFirst(6).dropLast().split(separator: " ")
        guard parts.count == 2, let lng = Double(parts[0]), let lat = Double(parts[1]) else { return nil }
        return Coordinate(lat: lat, lng: lng)
    }

    private static func segmentSpeed(
        from start: (coordinate: Coordinate, time: Date),
        to end: (coordinate: Coordinate, time: Date)
    ) -> Double {
        let elapsed = end.time.timeIntervalSince(start.time)
        return elapsed > 0 ? start.coordinate.distance(to: end.coordinate) / elapsed : -1
    }
}
