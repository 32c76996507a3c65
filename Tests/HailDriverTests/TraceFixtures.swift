import Foundation
import HailCore
import HailDriver
import HailTestSupport

/// The real traces from ../shared/data, read through HailDriver's parsers.
enum TraceFixtures {
    static let munichPath = "traces/barefoot-munich/x0001-001.json"
    static let liverpoolPath = "traces/liverpool-bus/route14_outbound.csv"

    /// True when the Munich drive is on this machine; the tests that replay it are skipped, not failed, without it.
    static var hasMunich: Bool { SharedData.file(munichPath) != nil }

    /// True when the Liverpool bus trace is on this machine.
    static var hasLiverpool: Bool { SharedData.file(liverpoolPath) != nil }

    static func munich() throws -> [LocationPoint]? {
        guard let url = SharedData.file(munichPath) else { return nil }
        return try DriverTrace.parseBarefoot(Data(contentsOf: url))
    }

    static func liverpool() throws -> [String: [LocationPoint]]? {
        guard let url = SharedData.file(liverpoolPath) else { return nil }
        return try DriverTrace.parseBusCSV(String(decoding: Data(contentsOf: url), as: UTF8.self))
    }

    /// The Munich drive with bad fixes injected: every 100th fix is followed by an 80 m-accuracy fix 33 m
    /// north a quarter second later, a fix 2 km north half a second later (an impossible jump), and a
    /// repeat of itself (out of order).
    static func withInjectedFaults(_ points: [LocationPoint]) -> [LocationPoint] {
        var result: [LocationPoint] = []
        for (index, point) in points.enumerated() {
            result.append(point)
            guard index % 100 == 50 else { continue }
            var blurred = point
            blurred.accuracy = 80
            blurred.lat += 0.0003
            blurred.t = point.t.addingTimeInterval(0.25)
            var jumped = point
            jumped.lat += 0.018
            jumped.t = point.t.addingTimeInterval(0.5)
            result += [blurred, jumped, point]
        }
        return result
    }
}
