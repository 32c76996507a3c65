import Foundation
import HailAPNs
import HailCore
import HailNet
import HailProtocol
import HailRoads
import HailServer
import HailSim
import Testing

/// The demo city's rides pushed to the APNs stand-in: the simulated riders register their device and Live
/// Activity tokens through the real rider core, as `hail demo` runs them.
@Suite(
    "A ride in the demo city pushes to APNs", .serialized,
    .enabled(if: APNsStandIn.available, "needs python3-h2 and python3-cryptography (scripts/setup.sh)"))
@MainActor
struct DemoCityPushTests {
    @Test func aCompletedRideDeliversItsFourAlertsAndLiveActivityUpdatesThenOneEnd() async throws {
        let standIn = try APNsStandIn()
        defer { standIn.stop() }
        let map = GeneratedCity(seed: 3, columns: 4, rows: 4, blockMeters: 80)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-demo-push-\(UUID()).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.configuration.roads = .loaded(RoadNetwork(graph: map.graph))
        options.configuration.pushSender = APNsPushSender.factory(try APNsStandInTests.configuration(standIn), log: nil)
        options.configuration.rateLimits.requestsPerAddress = nil
        options.configuration.rateLimits.connectionsPerAddress = nil
        let server = try await BackendServer.start(options)
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))
        var city = CityConfiguration()
        city.drivers = 3
        city.riders = 1
        city.seed = 7
        city.requestInterval = 1
        city.acceptProbability = 1
        city.cancelProbability = 0
        city.speedFactor = 2
        city.boardingSeconds = 1
        let simulation = City(
            configuration: city, server: URL(string: "http://127.0.0.1:\(server.port)")!,
            tokens: { role, subject in
                let now = Int64(Date().timeIntervalSince1970)
                return tokens.mint(AccessToken(role: role, sub: subject, exp: now + 3600, iat: now))
            }, graph: map.graph, clock: ContinuousClock(), origin: Date())
        let runner = Task { await simulation.run() }
        // A deadline, not a wait: stopping the city makes `waitUntil` answer false.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { runner.cancel() }
        let completed = await simulation.waitUntil { $0.completed >= 1 }
        runner.cancel()
        await runner.value
        await server.services.push?.idle()
        await server.shutdown()
        #expect(completed, "no trip completed: \(simulation.report.summary)")

        let requests = try standIn.requests()
        let device = PushTokenFormat.hex(SimPushTokens.device(riderID: "sim-rider-1"))
        let alerts = try requests.filter { $0.header("apns-push-type") == "alert" }.map {
            ($0, try JSONDecoder().decode(AlertPayload.self, from: Data($0.body.utf8)))
        }
        #expect(alerts.allSatisfy { $0.0.token == device && $0.0.header("apns-topic") == "com.example.rider" })
        let tripID = try #require(alerts.first { $0.1.event == .tripCompleted }?.1.tripID)
        #expect(
            alerts.filter { $0.1.tripID == tripID }.map(\.1.event)
                == [.driverAssigned, .driverArrived, .tripStarted, .tripCompleted])

        let activity = PushTokenFormat.hex(SimPushTokens.liveActivity(tripID: tripID))
        let updates = requests.filter { $0.token == activity }
        #expect(updates.allSatisfy { $0.header("apns-topic") == "com.example.rider.push-type.liveactivity" })
        let payloads = try updates.map { try JSONDecoder().decode(LiveActivityPayload.self, from: Data($0.body.utf8)) }
        // The token is registered as the request returns, so the assignment may come before it: the activity
        // sees the trip from whichever state it was registered in, and ends once.
        #expect(payloads.map(\.aps.event).filter { $0 == "end" } == ["end"])
        #expect(payloads.last?.aps.event == "end")
        #expect(Array(payloads.map(\.aps.contentState.state).suffix(3)) == [.driverArrived, .onTrip, .completed])
        #expect(requests.allSatisfy { $0.jwtValid && $0.protocol == "h2" && $0.status == 200 })
    }
}
