import Foundation
import HailCore

/// Parsers for the recorded traces the replayer plays: Barefoot JSON, the Liverpool bus CSV and GPX.
///
/// They take a file's contents, never a path, so they stay free of I/O. None of the formats carries a
/// horizontal accuracy, so every fix gets `accuracy`; a missing heading or speed is filled from the
/// neighbouring fixes (bearing to the next one, speed from the previous one), or -1 (unknown).
public enum DriverTrace {
    /// The fixes of a Barefoot JSON trace: `[{"point": "POINT(lon lat)", "time": "2014-09-10 06:54:07+0200"}]`.
    public static func parseBarefoot(_ data: Data, accuracy: Double = 5) throws(DriverTraceError) -> [LocationPoint] {
        struct Record: Decodable {
            let point: String
            let time: String
        }
        let records: [Record]
        do { records = try JSONDecoder().decode([Record].self, from: data) } catch {
            throw DriverTraceError("JSON", "not an array of {point, time}: \(error)")
        }
        var raw: [(Coordinate, Date, Double?)] = []
        for (index, record) in records.enumerated() {
            let text = record.point
            let parts =
                text.hasPrefix("POINT(") && text.hasSuffix(")")
                ? text.dropFirst(6).dropLast().split(separator: " ") : []
            guard parts.count == 2, let lng = Double(parts[0]), let lat = Double(parts[1]) else {
                throw DriverTraceError("element \(index)", "point is not POINT(lon lat): \(text.prefix(60))")
            }
            guard let time = offsetFormatter.date(from: record.time) else {
                throw DriverTraceError(
                    "element \(index)", "time is not yyyy-MM-dd HH:mm:ss+hhmm: \(record.time.prefix(40))")
            }
            raw.append((Coordinate(lat: lat, lng: lng), time, nil))
        }
        return complete(raw, accuracy: accuracy)
    }

    /// The Liverpool bus CSV (`id,vehicle_id,trip_id,timestamp,latitude,longitude,bearing,...`, UTC times):
    /// the fixes of each bus trip, in file order, keyed by trip id (one vehicle drives several trips with
    /// long layovers between them, which are not gaps in anyone's drive).
    public static func parseBusCSV(_ text: String, accuracy: Double = 10) throws(DriverTraceError) -> [String:
        [LocationPoint]]
    {
        let lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline)
        guard let header = lines.first else { throw DriverTraceError("line 1", "the file is empty") }
        let names = fields(header)
        func column(_ name: String) throws(DriverTraceError) -> Int {
            guard let index = names.firstIndex(of: name) else {
                throw DriverTraceError("line 1", "no \(name) column in the header")
            }
            return index
        }
        let trip = try column("trip_id")
        let timestamp = try column("timestamp")
        let latitude = try column("latitude")
        let longitude = try column("longitude")
        let bearing = try column("bearing")
        var byTrip: [String: [(Coordinate, Date, Double?)]] = [:]
        for (offset, line) in lines.dropFirst().enumerated() {
            let row = fields(line)
            let place = "line \(offset + 2)"
            guard row.count == names.count else {
                throw DriverTraceError(place, "\(row.count) fields, the header has \(names.count)")
            }
            guard let lat = Double(row[latitude]), let lng = Double(row[longitude]) else {
                throw DriverTraceError(place, "latitude and longitude must be numbers")
            }
            guard let time = utcFormatter.date(from: row[timestamp]) else {
                throw DriverTraceError(place, "timestamp is not yyyy-MM-dd HH:mm:ss: \(row[timestamp].prefix(40))")
            }
            byTrip[row[trip], default: []].append((Coordinate(lat: lat, lng: lng), time, Double(row[bearing])))
        }
        return byTrip.mapValues { complete($0, accuracy: accuracy) }
    }

    /// The track points of a GPX 1.1 file (`<trkpt lat= lon=><time>…</time></trkpt>`), in file order.
    public static func parseGPX(_ text: String, accuracy: Double = 5) throws(DriverTraceError) -> [LocationPoint] {
        var raw: [(Coordinate, Date, Double?)] = []
        var rest = text[...]
        var index = 0
        while let open = rest.range(of: "<trkpt") {
            guard let close = rest[open.upperBound...].range(of: "</trkpt>") else {
                throw DriverTraceError("trkpt \(index)", "no closing </trkpt>")
            }
            let element = rest[open.upperBound..<close.lowerBound]
            guard let lat = attribute("lat", in: element).flatMap(Double.init),
                let lng = attribute("lon", in: element).flatMap(Double.init)
            else { throw DriverTraceError("trkpt \(index)", "lat and lon attributes must be numbers") }
            guard let timeText = child("time", in: element) else {
                throw DriverTraceError("trkpt \(index)", "no <time>")
            }
            guard let time = isoDate(timeText) else {
                throw DriverTraceError("trkpt \(index)", "time is not ISO 8601: \(timeText.prefix(40))")
            }
            raw.append((Coordinate(lat: lat, lng: lng), time, nil))
            rest = rest[close.upperBound...]
            index += 1
        }
        guard !raw.isEmpty else { throw DriverTraceError("GPX", "no <trkpt> elements") }
        return complete(raw, accuracy: accuracy)
    }

    /// Fills heading and speed from neighbours and sets the accuracy.
    static func complete(_ raw: [(Coordinate, Date, Double?)], accuracy: Double) -> [LocationPoint] {
        raw.indices.map { index in
            let (here, time, recordedHeading) = raw[index]
            var heading = recordedHeading ?? -1
            if recordedHeading == nil, index + 1 < raw.count, raw[index + 1].0 != here {
                heading = here.bearing(to: raw[index + 1].0)
            }
            var speed = -1.0
            let neighbour = index > 0 ? index - 1 : index + 1
            if neighbour < raw.count, neighbour != index {
                let (a, b) = neighbour < index ? (raw[neighbour], raw[index]) : (raw[index], raw[neighbour])
                let elapsed = b.1.timeIntervalSince(a.1)
                if elapsed > 0 { speed = a.0.distance(to: b.0) / elapsed }
            }
            return LocationPoint(
                lat: here.lat, lng: here.lng, accuracy: accuracy, heading: heading, speed: speed, t: time)
        }
    }

    private static func fields(_ line: Substring) -> [String] {
        var result: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                result.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        result.append(current)
        return result
    }

    private static func attribute(_ name: String, in element: Substring) -> String? {
        for quote in ["\"", "'"] {
            if let start = element.range(of: " \(name)=\(quote)"),
                let end = element[start.upperBound...].range(of: quote)
            {
                return String(element[start.upperBound..<end.lowerBound])
            }
        }
        return nil
    }

    private static func child(_ name: String, in element: Substring) -> String? {
        guard let open = element.range(of: "<\(name)>"),
            let close = element[open.upperBound...].range(of: "</\(name)>")
        else { return nil }
        return element[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func isoDate(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return ISO8601DateFormatter().date(from: text) ?? fractional.date(from: text)
    }

    private static var offsetFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ssZ"
        return formatter
    }

    private static var utcFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }
}
