import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import Testing

/// A stream that closes while its setup still waits on storage (what apps do during an outage, every few seconds)
/// leaves no bus subscription behind: counted on the real server's bus, over real sockets.
@Suite("Streams closed before their setup finished")
struct EarlyCloseTests {
    /// The real server over loopback in front of services on a trip store that can hold reads.
    static func start(_ trips: FlakyTripStore) async throws -> (ServerHarness, BackendServer, InProcessTripBus) {
        let bus = InProcessTripBus()
        var harness = await ServerHarness(
            trips: trips, authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)), bus: bus)
        var options = BackendServer.Options()
        options.port = 0
        options.log = nil
        let server = try await BackendServer.start(services: harness.services, options: options)
        harness.baseURL = "http://127.0.0.1:\(server.port)"
        return (harness, server, bus)
    }

    /// Polls `probe` until it holds, each try paced by a round trip to the server (never a timer); fails after 10 s.
    static func eventually(_ h: ServerHarness, _ what: String, _ probe: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if await probe() { return }
            _ = await h.call("GET", "/healthz")
        }
        throw LoopbackError(description: "\(what) did not happen within 10 s")
    }

    @Test func aRiderStreamClosedDuringItsSetupCancelsItsSubscription() async throws {
        let trips = FlakyTripStore()
        let (h, server, bus) = try await Self.start(trips)
        let client = try WebSocketClient()
        defer {
            Task {
                await client.shutdown()
                await server.shutdown()
            }
        }
        let created = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "r-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        #expect(created.status == 201)
        // The upgrade's read passes; the setup's waits.
        trips.hold(afterPassing: 1)
        let socket = try await client.connect(
            to: "ws://127.0.0.1:\(server.port)/v1/trips/trip-1/live?access_token=\(h.token(.rider, "r-1"))")
        // Subscribed, then stuck reading the trip.
        try await Self.eventually(h, "the setup waiting on storage") { trips.waiting == 1 }
        #expect(await bus.subscriberCount(.trip("trip-1")) == 1)
        socket.close(code: 1000, reason: "rider left")
        _ = await socket.closed()
        trips.release()
        try await Self.eventually(h, "the subscription cancelled") { await bus.subscriberCount(.trip("trip-1")) == 0 }
    }

    @Test func aDriverStreamClosedDuringItsSetupCancelsItsSubscription() async throws {
        let trips = FlakyTripStore()
        let (h, server, bus) = try await Self.start(trips)
        let client = try WebSocketClient()
        defer {
            Task {
                await client.shutdown()
                await server.shutdown()
            }
        }
        trips.hold()
        let socket = try await client.connect(
            to: "ws://127.0.0.1:\(server.port)/v1/drivers/me/live?access_token=\(h.token(.driver, "d-1"))")
        try await Self.eventually(h, "the setup waiting on storage") { trips.waiting == 1 }
        #expect(await bus.subscriberCount(.driver("d-1")) == 1)
        socket.close(code: 1000, reason: "driver left")
        _ = await socket.closed()
        trips.release()
        try await Self.eventually(h, "the subscription cancelled") { await bus.subscriberCount(.driver("d-1")) == 0 }
        // A stream that stays open keeps its subscription until it closes.
        let open = try await client.connect(
            to: "ws://127.0.0.1:\(server.port)/v1/drivers/me/live?access_token=\(h.token(.driver, "d-1"))")
        try await Self.eventually(h, "the setup done") { await bus.subscriberCount(.driver("d-1")) == 1 }
        open.close(code: 1000, reason: "driver left")
        _ = await open.closed()
        try await Self.eventually(h, "the subscription cancelled") { await bus.subscriberCount(.driver("d-1")) == 0 }
    }

    /// Read from the close frame's bytes (HailNet's client, lws 4.1.6, hands a received 1013 over as 1002, 4013 as it is).
    @Test func aTripStoreThatFailsClosesTheRiderStreamWith4013NotTripNotFound() async throws {
        let trips = FlakyTripStore()
        let (h, server, _) = try await Self.start(trips)
        defer { Task { await server.shutdown() } }
        let created = await h.call(
            "POST", "/v1/trips", token: h.token(.rider, "r-1"), json: ServerHarness.requestBody(),
            key: UUID().uuidString)
        #expect(created.status == 201)
        // The upgrade's read works; the setup's fails.
        trips.failReads(afterPassing: 1)
        let port = server.port
        let rider = h.token(.rider, "r-1")
        let close = try await onItsOwnThread { () -> (code: UInt16, reason: String) in
            let socket = try RawSocket(port: port)
            try socket.upgrade(path: "/v1/trips/trip-1/live?access_token=\(rider)", port: port)
            return try socket.readClose()
        }
        #expect(close.code == 4013)
        #expect(close.reason == "storage is unavailable")
        #expect(WebSocketCloseCode(rawValue: close.code).shouldReconnect)
        trips.failReads(afterPassing: nil)
        let missing = try await onItsOwnThread { () -> (code: UInt16, reason: String) in
            let socket = try RawSocket(port: port)
            try socket.upgrade(path: "/v1/trips/trip-9/live?access_token=\(rider)", port: port)
            return try socket.readClose()
        }
        #expect(missing.code == 4004)
    }
}
