import Foundation
import HailCore
import HailTesting
import Testing

struct BarefootTraceTests {
    @Test func parsesPointsTimesAndDerivesHeadingAndSpeed() throws {
        let json = """
            [{"point":"POINT(11.5 48.1)","time":"2014-09-10 06:54:07+0200","id":"\\\\x0001"},
             {"point":"POINT(11.5 48.1001)","time":"2014-09-10 06:54:09+0200","id":"\\\\x0001"},
             {"point":"POINT(11.5 48.1001)","time":"2014-09-10 06:54:10+0200","id":"\\\\x0001"}]
            """
        let points = try BarefootTrace.parse(Data(json.utf8))
        let start = Coordinate(lat: 48.1, lng: 11.5)
        let end = Coordinate(lat: 48.1001, lng: 11.5)
        #expect(points.map(\.coordinate) == [start, end, end])
        #expect(points.map(\.t.timeIntervalSince1970) == [1_410_324_847, 1_410_324_849, 1_410_324_850])
        #expect(points.allSatisfy { $0.accuracy == 5 })
        // Due north to the next point; unknown when the next point is in the same place or missing.
        #expect(points.map(\.heading) == [0, -1, -1])
        // Speed over the segment that ends at the point; the first point borrows the next segment's.
        let speed = start.distance(to: end) / 2
        #expect(points.map(\.speed) == [speed, speed, 0])
    }

    @Test func aBadPointNamesItsIndex() {
        let json = #"[{"point":"POINT(11.5 48.1)","time":"2014-09-10 06:54:07+0200"},{"point":"LINE(1 2)","time":"x"}]"#
        let error = #expect(throws: BarefootTrace.FormatError.self) {
            try BarefootTrace.parse(Data(json.utf8))
        }
        #expect(error?.description == "trace element 1: point is not POINT(lon lat): LINE(1 2)")
    }

    @Test(.enabled(if: SharedData.isAvailable, "needs ../shared/data/traces/barefoot-munich (the real Munich trace)"))
    func theMunichTraceAsRecordedLosesOnlyTheFrozenGPSExit() throws {
        let trace = try #require(try BarefootTrace.munich(), "traces/barefoot-munich/x0001-001.json is missing")
        #expect(trace.count == 1194)
        #expect(trace.first?.coordinate == Coordinate(lat: 48.16350662940509, lng: 11.564388282625075))
        #expect(trace.first?.t == Date(timeIntervalSince1970: 1_410_324_847))
        var filter = LocationFilter()
        let kept = trace.filter { filter.evaluate($0) == .accept }
        // The GPS repeats one position for 19 s, then re-acquires 470 m away: the next 10 fixes imply
        // over 200 km/h from the frozen one and are dropped until time makes the jump possible.
        #expect(filter.counts.impossibleSpeed == 10)
        #expect(filter.counts.rejected == 10)
        #expect(kept.count == 1184)
        #expect(!kept.contains(trace[619]) && !kept.contains(trace[628]) && kept.contains(trace[629]))
    }
}
