import Foundation
import HailCore
import HailProtocol

/// Makes one simulated driver's location frames: a car driving 12 m/s up and down a 12 km street,
/// one fix per second of the driver's own timeline, so every fix passes the server's filter.
///
/// The timeline is virtual (fix k is at `start + k` seconds whatever the wall clock says): a closed
/// loop sends batches faster than real time, and fixes stamped with the wall clock would then imply
/// impossible speeds and be filtered, measuring the filter instead of ingest.
struct LocationFrameFactory: Sendable {
    /// Fixes per batch.
    let pointsPerBatch: Int
    /// Where this driver's street starts.
    let origin: Coordinate
    /// Milliseconds since 1970 of fix 0.
    let startMilliseconds: Int64

    /// Metres per fix, along the street (12 m/s at one fix per second).
    static let stepMeters = 12.0
    /// Fixes per leg before the car turns around on its street (12 km).
    static let streetLegFixes: Int64 = 1_000
    /// Fixes per leg of a car waiting near its pickup: it stays within 96 m of where it started, inside the 150 m
    /// the server weighs a driver's `arrived` and `started` against.
    static let pickupLegFixes: Int64 = 8
    /// Fixes per leg of this driver's back and forth.
    let legFixes: Int64

    /// A factory for driver number `index`; drivers are spread over a 10 by 10 km grid.
    init(index: Int, pointsPerBatch: Int, startMilliseconds: Int64, legFixes: Int64 = Self.streetLegFixes) {
        self.pointsPerBatch = pointsPerBatch
        self.legFixes = max(1, legFixes)
        self.origin = Coordinate(
            lat: 43.60 + Double(index % 100) * 0.001, lng: 7.30 + Double(index / 100 % 100) * 0.001)
        self.startMilliseconds = startMilliseconds
    }

    /// The batch with sequence number `seq` (from 1): fixes `(seq - 1) * pointsPerBatch` onwards.
    func batch(seq: Int64) -> LocationBatch {
        let first = (seq - 1) * Int64(pointsPerBatch)
        return LocationBatch(seq: seq, points: (0..<Int64(pointsPerBatch)).map { point(first + $0) })
    }

    /// Fix number `k` of this driver's timeline.
    private func point(_ k: Int64) -> LocationPoint {
        let leg = k % (2 * legFixes)
        let along = leg < legFixes ? leg : 2 * legFixes - leg
        let heading: Double = leg < legFixes ? 0 : 180
        return LocationPoint(
            lat: origin.lat + Double(along) * Self.stepMeters / 111_320, lng: origin.lng, accuracy: 5,
            heading: heading, speed: Self.stepMeters,
            t: Date(timeIntervalSince1970: Double(startMilliseconds + k * 1000) / 1000))
    }

    /// The text frame `{"type":"location","seq":..,"points":[..]}`, written by hand because a
    /// JSONEncoder per batch would spend the cores the in-process server is being measured on.
    func json(seq: Int64) -> String {
        let batch = batch(seq: seq)
        var text = #"{"type":"location","seq":\#(seq),"points":["#
        for (index, point) in batch.points.enumerated() {
            if index > 0 { text += "," }
            let millis = Int64((point.t.timeIntervalSince1970 * 1000).rounded())
            let stamp = (try? WireDate.format(millisecondsSince1970: millis)) ?? "1970-01-01T00:00:00.000Z"
            text +=
                #"{"lat":\#(point.lat),"lng":\#(point.lng),"accuracy":\#(point.accuracy),"heading":\#(point.heading),"#
                + #""speed":\#(point.speed),"t":"\#(stamp)"}"#
        }
        return text + "]}"
    }

    /// The compact binary frame (`LocationBatchCodec`).
    func binary(seq: Int64) -> [UInt8] {
        (try? LocationBatchCodec.encodeBytes(batch(seq: seq))) ?? []
    }

    /// Checks that the hand-written JSON and the binary frame both decode to this factory's batch,
    /// so a formatting slip fails the benchmark at once instead of measuring rejected frames.
    func selfCheck() throws(BenchError) {
        let expected = batch(seq: 1)
        guard let decoded = try? HailJSON.decode(DriverClientFrame.self, from: Data(json(seq: 1).utf8)),
            case .location(let batch) = decoded, batch.seq == 1, batch.points.count == expected.points.count,
            zip(batch.points, expected.points).allSatisfy({
                abs($0.lat - $1.lat) < 1e-9 && abs($0.t.timeIntervalSince($1.t)) < 0.001
            })
        else { throw BenchError("internal: the generated JSON location frame does not decode as sent") }
        guard let binary = try? LocationBatchCodec.decode(bytes: binary(seq: 1)),
            binary.points.count == expected.points.count
        else { throw BenchError("internal: the generated binary location frame does not decode") }
    }
}
