import Foundation
import HailCore
import HailFleet
import HailServer
import HailTesting
import Testing

/// `hail fleet`'s library against a real `hail server` on loopback: one driver serving one rider's two rides, on
/// Monaco's roads when the shared data is here, and what the apps' event logs then say.
@Suite("hail fleet against the real server", .serialized)
struct FleetTests {
    @Test func twoRidesEndCompletedAndTheLogsHoldWhatI8AndI10Need() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let system = try await SystemServer(folder: folder)
        defer {
            Task {
                await system.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        }
        let logs = folder.appendingPathComponent("fleet").path
        var configuration = FleetConfiguration(
            server: system.baseURL, riders: 1, drivers: 1, seed: 7, logDirectory: logs,
            token: { role, subject in system.token(role == "driver" ? .driver : .rider, subject) })
        configuration.ridesPerRider = 2
        configuration.cancelOneIn = 0
        // A few blocks of Monaco's centre (its one-way streets make a route across its whole centre 2.5 km long, a
        // minute a leg), at the suite's 150 km/h.
        configuration.area = FleetArea(
            southWest: Coordinate(lat: 43.7370, lng: 7.4230), northEast: Coordinate(lat: 43.7400, lng: 7.4270))
        // A guard, not a measurement: the fleet stops once both rides have ended.
        configuration.duration = 400
        let map = SharedData.file("osm/monaco.osm.pbf")
        if let map { configuration.routes = try FleetRoutes.roads(pbfPath: map.path) }

        let summary = try await Fleet.run(configuration)

        #expect(summary.rides == ["completed": 2])
        let rider = try Self.events(logs + "/rider-1.jsonl")
        let driver = try Self.events(logs + "/driver-1.jsonl")
        #expect(rider.first?["subject"] as? String == "fl-r-1")
        #expect(driver.first?["subject"] as? String == "fl-d-1")
        let rideEnds = rider.filter { $0["ev"] as? String == "ride" && $0["step"] as? String == "end" }
        #expect(rideEnds.map { $0["state"] as? String } == ["completed", "completed"])
        let trips = rideEnds.compactMap { $0["trip"] as? String }
        #expect(Set(trips).count == 2)

        // The driver: one offer per trip with its lapse ahead of it, one accepted accept, the trip's states in order.
        for trip in trips {
            let offers = driver.filter { $0["ev"] as? String == "offer" && $0["trip"] as? String == trip }
            #expect(offers.count == 1)
            if let offer = offers.first, let t = offer["t"] as? Double, let expires = offer["expiresAt"] as? Double {
                #expect(expires > t)
            }
            let accepts = driver.filter {
                $0["ev"] as? String == "rest" && $0["call"] as? String == "accept" && $0["trip"] as? String == trip
            }
            #expect(accepts.map { $0["outcome"] as? String } == ["ok"])
            #expect(accepts.first?["state"] as? String == "driverAssigned")
            let states = driver.filter { $0["ev"] as? String == "trip" && $0["trip"] as? String == trip }
                .compactMap { $0["state"] as? String }
            #expect(states.first == "driverAssigned")
            #expect(states.last == "completed")
            #expect(states.contains("driverArrived") && states.contains("onTrip"))
        }
        let streams = driver.filter { $0["ev"] as? String == "stream" }.compactMap { $0["stream"] as? String }
        #expect(Array(streams.prefix(3)) == ["connecting", "connected", "hello"])

        // I8: each trip's charged distance is within 3 % of the path through the fixes the app had acknowledged.
        for trip in trips {
            let ends = driver.filter { $0["ev"] as? String == "tripEnd" && $0["trip"] as? String == trip }
            let charged = try #require(ends.first?["distance"] as? Int)
            #expect(ends.first?["state"] as? String == "completed")
            #expect((ends.first?["fare"] as? Int ?? 0) > 0)
            var fixes: [Double: Coordinate] = [:]
            for line in driver where line["ev"] as? String == "fixes" && line["trip"] as? String == trip {
                for fix in line["fixes"] as? [[Double]] ?? [] { fixes[fix[0]] = Coordinate(lat: fix[1], lng: fix[2]) }
            }
            let path = fixes.sorted { $0.key < $1.key }.map(\.value)
            #expect(path.count >= 2)
            let driven = path.pathLength
            #expect(driven > 0)
            #expect(
                abs(Double(charged) - driven) <= 0.03 * driven, "trip \(trip): charged \(charged) m, fixes \(driven) m")
            // The car drove its route; its 1 Hz fixes cut the corners, never lengthen it.
            let route = try #require(ends.first?["driven"] as? Double)
            #expect(driven <= route + 1)
        }

        // I10: every live pin the rider's screen showed was for a fix of this driver taken under 6 s before.
        let fixTimes = Dictionary(
            driver.filter { $0["ev"] as? String == "sent" }.compactMap { line -> (Int, Double)? in
                guard let seq = line["seq"] as? Int, let at = line["lastFixAt"] as? Double else { return nil }
                return (seq, at)
            }, uniquingKeysWith: { first, _ in first })
        let live = rider.filter { $0["ev"] as? String == "frame" && $0["pin"] as? String == "live" }
        #expect(!live.isEmpty)
        for frame in live {
            #expect(frame["driver"] as? String == "fl-d-1")
            let seq = try #require(frame["seq"] as? Int)
            let taken = try #require(fixTimes[seq], "the rider showed seq \(seq), which the driver never sent")
            let t = try #require(frame["t"] as? Double)
            #expect(t - taken < 6, "a live pin for a fix \(t - taken) s old")
        }
        let phases = rider.filter { $0["ev"] as? String == "frame" }.compactMap { $0["phase"] as? String }
        #expect(Self.collapsed(phases).filter { $0 != "idle" }.starts(with: ["searching", "driverAssigned"]))
    }

    @Test func hailFleetRefusesABoxWithItsCornersSwappedBeforeWritingAnything() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("hail.secret").path
        _ = try ServerSecret.loadOrCreate(at: secret)
        let logs = folder.appendingPathComponent("fleet").path
        let fleet = try HailCommandProcess(
            [
                "--server", "http://127.0.0.1:9", "--secret-file", secret, "--log", logs,
                "--area", "43.7440,7.4300,43.7340,7.4180",
            ], command: "fleet")
        let status = await withDeadline(30) { await fleet.status() }
        if status == nil { fleet.process.send(SIGKILL) }
        #expect(status == 64)
        #expect(!FileManager.default.fileExists(atPath: logs))
    }

    /// Each line of a JSON-lines log as an object.
    static func events(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// `values` with runs of one value collapsed to one.
    static func collapsed(_ values: [String]) -> [String] {
        values.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
    }
}
