import Foundation
import HailClient
import HailCore
import HailProtocol
import HailStorage
import HailTesting
import Testing

/// `hail ride --state FILE`, the terminal rider app on the real store, killed the moment it has reported a cursor.
@Suite("hail ride keeps every cursor it reported through a SIGKILL", .serialized)
struct RideCommandKillTests {
    /// One line of `hail ride --json`, as much of it as the test reads.
    struct Line: Decodable {
        var phase: String
        var tripID: String?
        var cursor: Int64?
    }

    /// The store is at `synchronous=NORMAL`: a save that returned is in the OS's hands, so a kill of the app loses
    /// none. The rider reports its cursor only once the save returned; the test sends the next position and kills
    /// the app at once, so the kill lands while that one is being saved.
    @Test func aSIGKILLedRideLosesNoCursorItReportedAtSynchronousNormal() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: HailCommandProcess.executable.path),
            "build the hail executable first (swift build --build-tests builds it beside the tests)")
        let loopback = try await LoopbackServer.start()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ride-kill-\(UUID().uuidString).db")
            .path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let driver = ScriptedDriver(
            http: HTTPTransport(baseURL: loopback.base, token: loopback.driverToken),
            socket: try await loopback.connector.connect(
                RiderLiveChannel(baseURL: loopback.base, token: loopback.driverToken, connector: loopback.connector)
                    .socketURL(Routes.driverLive.template), token: loopback.driverToken))
        _ = try await driver.next({ if case .hello = $0 { true } else { false } }, "driver hello")
        try await driver.goOnline()
        try driver.move(seq: 1, to: Coordinate(lat: 43.7420, lng: 7.4300))
        _ = try await driver.next({ if case .ack(let ack) = $0 { ack.seq == 1 } else { false } }, "ack of seq 1")

        let rider = try HailCommandProcess(
            [
                "--server", loopback.base.absoluteString, "--token", loopback.riderToken, "--from", "43.7396,7.4276",
                "--to", "43.7314,7.4197", "--json", "--state", path,
            ], command: "ride")
        // A child that outlives a failed step must not outlive the test.
        defer { if rider.process.termination == nil { rider.process.send(SIGKILL) } }
        let offer = try await driver.next({ if case .offer = $0 { true } else { false } }, "offer")
        guard case .offer(let offered) = offer else { return }
        try await driver.accept(offered.trip.id)
        // The car comes 60 m closer with each fix; the next one goes as the rider reports the cursor of the last.
        let fix: @Sendable (Int64) -> Void = { seq in
            try? driver.move(seq: seq, to: Coordinate(lat: 43.7420 - Double(seq) * 0.00054, lng: 7.4300))
        }
        let reported = await withDeadline(60) { () -> (tripID: String, cursor: Int64)? in
            var sent: Int64 = 1
            for await text in rider.lines {
                guard let line = try? HailJSON.decode(Line.self, from: Data(text.utf8)) else { continue }
                if sent == 1, line.phase == "driverAssigned" {
                    sent = 2
                    fix(sent)
                }
                guard let cursor = line.cursor, let tripID = line.tripID, cursor >= sent else { continue }
                sent += 1
                fix(sent)
                if cursor >= 3 {
                    rider.process.send(SIGKILL)
                    return (tripID, cursor)
                }
            }
            return nil
        }
        #expect(await rider.status() == SIGKILL)
        await loopback.stop()
        let (tripID, cursor) = try #require(reported ?? nil, "hail ride reported no cursor of 3 or more in 60 s")
        #expect(tripID == offered.trip.id)
        let stored = try await onItsOwnThread { () -> Int64? in
            let file = try SQLiteConnection.inspecting(.file(path))
            defer { try? file.close() }
            return try file.firstRow("SELECT seq FROM rider_cursor WHERE trip_id = ?", tripID)?.value(0, as: Int64.self)
        }
        // What it reported, or the position it was saving as it died.
        #expect(stored == cursor || stored == cursor + 1)
    }
}
