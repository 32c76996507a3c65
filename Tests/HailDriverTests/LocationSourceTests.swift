import Foundation
import HailCore
import HailDriver
import HailTestSupport
import HailTime
import Synchronization
import Testing

@Suite("Trace parsers, the replayer and the route follower")
struct LocationSourceTests {
    static let gpx = """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="test"><trk><trkseg>
        <trkpt lat="43.7300" lon="7.4200"><ele>10</ele><time>2026-12-02T10:00:00Z</time></trkpt>
        <trkpt lat='43.7301' lon='7.4200'><time>2026-12-02T10:00:01.500Z</time></trkpt>
        <trkpt lat="43.7301" lon="7.4200"><time>2026-12-02T10:00:03Z</time></trkpt>
        </trkseg></trk></gpx>
        """

    @Test func gpxTrackPointsWithHeadingAndSpeedFromTheirNeighbours() throws {
        let points = try DriverTrace.parseGPX(Self.gpx)
        #expect(points.count == 3)
        #expect(points.map(\.lat) == [43.7300, 43.7301, 43.7301])
        #expect(points.map(\.t.timeIntervalSince1970) == [1_796_205_600, 1_796_205_601.5, 1_796_205_603])
        #expect(points[0].heading == 0)
        #expect(points[1].heading == -1)
        #expect((points[1].speed * 1000).rounded() == 7413)
        #expect(points[2].speed == 0)
        #expect(points.allSatisfy { $0.accuracy == 5 })
    }

    @Test func badTraceFilesSayWhereAndWhat() {
        #expect(throws: DriverTraceError("trkpt 0", "lat and lon attributes must be numbers")) {
            try DriverTrace.parseGPX(#"<trkpt lat="north" lon="7.4"><time>2026-12-02T10:00:00Z</time></trkpt>"#)
        }
        #expect(throws: DriverTraceError("GPX", "no <trkpt> elements")) { try DriverTrace.parseGPX("<gpx/>") }
        #expect(throws: DriverTraceError("line 3", "5 fields, the header has 7")) {
            try DriverTrace.parseBusCSV(
                "id,vehicle_id,trip_id,timestamp,latitude,longitude,bearing\n1,v,t,2026-01-26 15:57:02,53.4,-2.9,\n2,v,t,x,1\n"
            )
        }
        #expect(throws: DriverTraceError("line 1", "no bearing column in the header")) {
            try DriverTrace.parseBusCSV("id,vehicle_id,trip_id,timestamp,latitude,longitude\n")
        }
        #expect(throws: DriverTraceError("element 0", "point is not POINT(lon lat): POINT(11.5)")) {
            try DriverTrace.parseBarefoot(Data(#"[{"point": "POINT(11.5)", "time": "2014-09-10 06:54:07+0200"}]"#.utf8))
        }
    }

    @Test(.enabled(if: TraceFixtures.hasMunich, "needs ../shared/data/traces/barefoot-munich"))
    func theMunichReplayAtTenTimesSpeedKeepsItsRecordedSpacing() async throws {
        let munich = try #require(try TraceFixtures.munich(), "needs ../shared/data")
        let clock = ManualClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let replayer = TraceReplayer(
            points: Array(munich.prefix(60)), speed: 10, timeline: Timeline(clock: clock, origin: start),
            policy: LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false))
        let received = Locked<[LocationPoint]>([])
        let reader = Task {
            for await point in replayer.fixes() { received.value.withLock { $0.append(point) } }
        }
        for _ in 0..<59 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(100))
        }
        await reader.value
        let points = received.value.withLock { $0 }
        #expect(await replayer.finished)
        #expect(await replayer.delivered == points.count)
        #expect(points.count + (await replayer.suppressed) == 60)
        #expect(points.count == 38)
        #expect(points.first?.t == start)
        // Stamped with the recorded spacing, so the 200 km/h filter sees the real speeds.
        let offsets = points.map { $0.t.timeIntervalSince(start) }
        #expect(offsets == points.map { $0.t.timeIntervalSince(start) }.sorted())
        #expect(offsets.last == 59)
        #expect(clock.now.offset == .milliseconds(5900))
    }

    @Test func theRouteFollowerDrivesToTheStopAndHonoursTheDistanceFilter() async throws {
        let clock = ManualClock()
        let start = Coordinate(lat: 43.7300, lng: 7.4200)
        let stop = Coordinate(lat: 43.7309, lng: 7.4200)
        let follower = RouteFollower(
            start: start, speed: 15, timeline: Timeline(clock: clock, origin: Date(timeIntervalSince1970: 0)))
        await follower.apply(LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: true))
        await follower.drive(through: [stop])
        let received = Locked<[LocationPoint]>([])
        // The reader calls off the deadline once it holds four fixes: cancelling it before it has read
        // what the follower already yielded would drop those fixes on a busy machine.
        let deadline = Deadline(seconds: 30)
        // Subscribed before the clock moves, so the first fix cannot come before anyone listens.
        let fixes = follower.fixes()
        let reader = Task {
            for await point in fixes {
                let count = received.value.withLock { points in
                    points.append(point)
                    return points.count
                }
                if count >= 4 { deadline.cancel() }
            }
        }
        for _ in 0..<14 {
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
        }
        await clock.sleepers(atLeast: 1)
        await deadline.wait()
        reader.cancel()
        let points = received.value.withLock { $0 }
        // 100 m at 15 m/s behind Low Power's 20 m filter: the first fix, then every 30 m, the last at the stop.
        #expect(points.map { $0.t.timeIntervalSince1970 } == [1, 3, 5, 7])
        #expect(await follower.isStopped)
        #expect(await follower.position == stop)
        #expect(points.last.map { Coordinate(lat: $0.lat, lng: $0.lng) } == stop)
        #expect(points.allSatisfy { $0.heading == 0 && $0.speed == 15 })
    }
}
