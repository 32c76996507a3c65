import Foundation
import HailCore
import HailDriver
import HailProtocol
import Testing

/// The driver's radio cost over a 10-hour shift at each policy, extrapolated from the real Munich drive,
/// against the design's budget of 9,000 updates and about 450 KB a shift.
@Suite("Upload per 10-hour shift")
struct ShiftBudgetTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let activity: DriverActivity
        let thermal: ThermalState
        let lowPower: Bool
        let sends: Int
        let points: Int
        let binaryBytes: Int
        let jsonBytes: Int

        var testDescription: String { "\(activity.rawValue), \(thermal.rawValue)\(lowPower ? ", Low Power" : "")" }
    }

    static let rows: [Row] = [
        Row(
            activity: .onTrip, thermal: .nominal, lowPower: false, sends: 12201, points: 24311, binaryBytes: 425_403,
            jsonBytes: 4_553_111),
        Row(
            activity: .onTrip, thermal: .nominal, lowPower: true, sends: 11538, points: 15063, binaryBytes: 328_730,
            jsonBytes: 3_116_967),
        Row(
            activity: .onTrip, thermal: .serious, lowPower: false, sends: 7592, points: 7742, binaryBytes: 194_852,
            jsonBytes: 1_716_823),
        Row(
            activity: .waitingForTrip, thermal: .nominal, lowPower: false, sends: 2741, points: 7531,
            binaryBytes: 117_881, jsonBytes: 1_320_161),
    ]

    static let shift: TimeInterval = 10 * 3600

    @Test(.enabled(if: TraceFixtures.hasMunich, "needs ../shared/data/traces/barefoot-munich"), arguments: rows)
    func aShiftAtThePolicy(_ row: Row) throws {
        let munich = try #require(try TraceFixtures.munich(), "needs ../shared/data")
        let policy = LocationPolicy(activity: row.activity, thermal: row.thermal, lowPower: row.lowPower)
        var replay = PipelineReplay(
            policy: policy, start: munich[0].t, riderWatching: row.activity != .waitingForTrip)
        replay.play(munich, tail: 30)
        let duration = munich.last!.t.timeIntervalSince(munich[0].t)
        let scale = Self.shift / duration
        let json = try replay.sent.map { try HailJSON.encode(DriverClientFrame.location($0)).count }.reduce(0, +)
        let sends = Int((Double(replay.sent.count) * scale).rounded())
        let points = Int((Double(replay.sent.map(\.points.count).reduce(0, +)) * scale).rounded())
        let binary = Int((Double(replay.pipeline.stats.bytes) * scale).rounded())
        let text = Int((Double(json) * scale).rounded())
        #expect(sends == row.sends)
        #expect(points == row.points)
        #expect(binary == row.binaryBytes)
        #expect(text == row.jsonBytes)
        #expect(binary < 450_000)
    }

    /// A driver waiting in one spot all shift: the distance filter lets nothing through, so the keep-alive
    /// is all that is sent, one fix every 14 s, each batch held the waiting policy's 10 s.
    @Test func aShiftWaitingInOneSpot() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let hour = (0..<3600).map { second in
            LocationPoint(lat: 43.7396, lng: 7.4276, accuracy: 20, heading: -1, speed: 0, t: start + Double(second))
        }
        var replay = PipelineReplay(
            policy: LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false), start: start)
        replay.play(hour, tail: 30)
        #expect(replay.hardwareSuppressed == 3599)
        #expect(replay.pipeline.stats.keepAlives == 259)
        #expect(replay.sent.count == 259)
        #expect(replay.sent.allSatisfy { $0.points.count == 1 })
        // 26.6 bytes a send (issue 14: 3 of them say when the batch was sent, 10 s after the fix was repeated):
        // 2,590 sends and 68,640 bytes a shift.
        #expect(replay.pipeline.stats.bytes == 6864)
    }
}
