import Foundation
import HailClient
import HailCore
import HailNet
import HailNetTransport
import HailProtocol
import HailServer
import HailTesting
import Testing

@testable import HailRider

/// A driver played by the test over the real wire: its WebSocket for positions and offers, HTTP for
/// status and trip events.
struct ScriptedDriver {
    let http: HTTPTransport
    let socket: LiveSocket
    let frames = Mailbox<DriverServerFrame>()

    init(http: HTTPTransport, socket: LiveSocket) {
        self.http = http
        self.socket = socket
        let frames = self.frames
        Task {
            for await frame in socket.frames {
                guard case .text(let text) = frame,
                    let decoded = try? HailJSON.decode(DriverServerFrame.self, from: Data(text.utf8))
                else { continue }
                await frames.put(decoded)
            }
        }
    }

    func goOnline() async throws {
        _ = try await http.send("POST", Routes.driverStatus.template, body: Data(#"{"online": true}"#.utf8))
    }

    /// Sends fix `seq`; the phone stamps fixes 30 s apart so the server's speed filter sees a car, not a jump.
    func move(seq: Int64, to coordinate: Coordinate) throws {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 180, speed: 8,
            t: Date(timeIntervalSinceNow: Double(seq) * 30 - 120))
        socket.send(
            text: try HailJSON.encodeString(DriverClientFrame.location(LocationBatch(seq: seq, points: [point]))))
    }

    /// Sends a keep-alive without a fix as seq `seq`: the phone repeats its last fix (`coordinate`) and says it
    /// has none, stamped as `move` stamps seq `seq`.
    func keepAliveWithoutFix(seq: Int64, at coordinate: Coordinate) throws {
        let point = LocationPoint(
            lat: coordinate.lat, lng: coordinate.lng, accuracy: 5, heading: 180, speed: 0,
            t: Date(timeIntervalSinceNow: Double(seq) * 30 - 120))
        socket.send(
            text: try HailJSON.encodeString(
                DriverClientFrame.location(LocationBatch(seq: seq, points: [point], noFix: true))))
    }

    /// The next frame the test is waiting for, skipping acks and the like.
    func next(_ wanted: @Sendable (DriverServerFrame) -> Bool, _ what: String) async throws -> DriverServerFrame {
        while true {
            let frame = try await frames.next(within: 30, what)
            if wanted(frame) { return frame }
        }
    }

    func accept(_ tripID: String) async throws {
        _ = try await http.send("POST", Routes.accept(tripID: tripID), idempotencyKey: UUID())
    }

    func report(_ event: TripEventKind, tripID: String) async throws {
        let body = try HailJSON.encode(TripEventRequest(event: event, idempotencyKey: UUID().uuidString.lowercased()))
        _ = try await http.send("POST", Routes.events(tripID: tripID), body: body)
    }
}

/// A real server on loopback with a database of its own, tokens for rider-1 and driver-1, and a connector.
struct LoopbackServer {
    let server: BackendServer
    let path: String
    let riderToken: String
    let driverToken: String
    let base: URL
    let connector: SocketConnector

    static func start() async throws -> LoopbackServer {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-rider-e2e-\(UUID()).db").path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        let server = try await BackendServer.start(options)
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret))
        let issued = Int64(Date().timeIntervalSince1970)
        return LoopbackServer(
            server: server, path: path,
            riderToken: tokens.mint(AccessToken(role: .rider, sub: "rider-1", exp: issued + 3600, iat: issued)),
            driverToken: tokens.mint(AccessToken(role: .driver, sub: "driver-1", exp: issued + 3600, iat: issued)),
            base: try #require(URL(string: "http://127.0.0.1:\(server.port)")),
            connector: SocketConnector(transport: try NetSocketTransport()))
    }

    func stop() async {
        await connector.shutdown()
        await server.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite("RiderModel over the real transports against the real server", .serialized)
@MainActor
struct RiderEndToEndTests {
    @Test func fromRequestToCompletedFareWithAScriptedDriver() async throws {
        let loopback = try await LoopbackServer.start()
        let (riderToken, driverToken, base, connector) = (
            loopback.riderToken, loopback.driverToken, loopback.base, loopback.connector
        )

        let driverHTTP = HTTPTransport(baseURL: base, token: driverToken, exchange: NetHTTPExchange())
        let liveForDriver = RiderLiveChannel(baseURL: base, token: driverToken, connector: connector)
        let driver = ScriptedDriver(
            http: driverHTTP,
            socket: try await connector.connect(liveForDriver.socketURL(Routes.driverLive.template), token: driverToken)
        )
        _ = try await driver.next({ if case .hello = $0 { true } else { false } }, "driver hello")
        try await driver.goOnline()
        let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
        let dropoff = Coordinate(lat: 43.7314, lng: 7.4197)
        try driver.move(seq: 1, to: Coordinate(lat: 43.7400, lng: 7.4280))
        _ = try await driver.next({ if case .ack = $0 { true } else { false } }, "ack of seq 1")

        let riderAPI = RiderHTTPAPI(
            transport: HTTPTransport(baseURL: base, token: riderToken, exchange: NetHTTPExchange()))
        let model = RiderModel(
            api: riderAPI,
            channel: RiderLiveChannel(baseURL: base, token: riderToken, connector: connector),
            cursors: InMemoryCursorStore())
        var phases: [RiderScreen.Phase] = []
        let recorder = Task { @MainActor in
            for await screen in model.changes() where phases.last != screen.phase { phases.append(screen.phase) }
        }
        model.screenVisibilityChanged(true)
        await model.launch()
        // The server stamps every answer with its clock; on one machine the offset is within the round trip.
        let sample = try #require(await riderAPI.latestClockSample())
        #expect(abs(sample.offset) <= sample.roundTrip)
        await model.loadEstimates(pickup: pickup, dropoff: dropoff)
        #expect(model.estimates.map(\.productID).contains(.economy))
        await model.requestRide(pickup: pickup, dropoff: dropoff, product: .economy)
        let tripID = try #require(model.trip?.id)
        #expect(model.screen.phase == .searching)

        let offer = try await driver.next({ if case .offer = $0 { true } else { false } }, "offer")
        guard case .offer(let offered) = offer else { return }
        #expect(offered.trip.id == tripID)
        try await driver.accept(tripID)
        try await until(model, "driver assigned") { model.screen.phase == .driverAssigned }
        #expect(model.screen.driver?.id == "driver-1")
        #expect(model.screen.canCancel)

        try driver.move(seq: 2, to: Coordinate(lat: 43.7398, lng: 7.4278))
        try await until(model, "seq 2 on the map") { model.driverLocation?.seq == 2 }
        #expect(model.cursor == 2)
        #expect(model.screen.pin == .live)
        // The car rests on seq 2 once the render delay has passed, whether or not seq 1 reached the glide first; on
        // the phone's estimate of the server's clock, which may run behind by up to the round trip of the sample it
        // rests on (on loopback a few milliseconds, seq 2 maybe received less than that ago): half a second covers it.
        let settled = Glide.Configuration().renderDelay + 0.5
        #expect(model.marker(at: Date().addingTimeInterval(settled))?.seq == 2)

        try await driver.report(.arrived, tripID: tripID)
        try await until(model, "arrived") { model.screen.phase == .driverArrived }
        try await driver.report(.started, tripID: tripID)
        try await until(model, "on trip") { model.screen.phase == .onTrip }
        #expect(!model.screen.canCancel)
        try driver.move(seq: 3, to: Coordinate(lat: 43.7350, lng: 7.4230))
        try await until(model, "seq 3 on the map") { model.driverLocation?.seq == 3 }
        try await driver.report(.ended, tripID: tripID)
        try await until(model, "completed") { model.screen.phase == .completed }

        let stored = try #require(try await RiderHTTPAPI(transport: driverHTTP).trip(id: tripID).fare)
        #expect(model.screen.fare == stored)
        #expect(stored.currency == "EUR")
        #expect(stored.amountMinor > 0)
        try await until(model, "stream closed") { model.connection == .idle }
        #expect(phases == [.idle, .searching, .driverAssigned, .driverArrived, .onTrip, .completed])

        recorder.cancel()
        model.stop()
        driver.socket.close()
        await loopback.stop()
    }

    @Test func aDriverWithNoFixNeverMovesTheRidersPinFresh() async throws {
        let loopback = try await LoopbackServer.start()
        let (riderToken, driverToken, base, connector) = (
            loopback.riderToken, loopback.driverToken, loopback.base, loopback.connector
        )
        let driverHTTP = HTTPTransport(baseURL: base, token: driverToken)
        let driver = ScriptedDriver(
            http: driverHTTP,
            socket: try await connector.connect(
                RiderLiveChannel(baseURL: base, token: driverToken, connector: connector).socketURL(
                    Routes.driverLive.template), token: driverToken))
        _ = try await driver.next({ if case .hello = $0 { true } else { false } }, "driver hello")
        try await driver.goOnline()
        let waitingAt = Coordinate(lat: 43.7400, lng: 7.4280)
        try driver.move(seq: 1, to: waitingAt)
        _ = try await driver.next({ if case .ack(let ack) = $0 { ack.seq == 1 } else { false } }, "ack of seq 1")

        let riderAPI = RiderHTTPAPI(transport: HTTPTransport(baseURL: base, token: riderToken))
        let model = RiderModel(
            api: riderAPI, channel: RiderLiveChannel(baseURL: base, token: riderToken, connector: connector),
            cursors: InMemoryCursorStore())
        model.screenVisibilityChanged(true)
        await model.launch()
        await model.requestRide(
            pickup: Coordinate(lat: 43.7396, lng: 7.4276), dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
            product: .economy)
        let tripID = try #require(model.trip?.id)
        _ = try await driver.next({ if case .offer = $0 { true } else { false } }, "offer")
        try await driver.accept(tripID)
        try await until(model, "driver assigned") { model.screen.phase == .driverAssigned }
        // Every position the rider's app applies, in order, up to seq 4. (The recorder reads its own stream, which
        // may run after the test's wait for seq 4: its answer is awaited, not peeked at.)
        let steps = model.changes()
        let recorder = Task { @MainActor in
            var applied: [Int64] = model.driverLocation.map { [$0.seq] } ?? []
            for await _ in steps {
                if let seq = model.driverLocation?.seq, seq != applied.last { applied.append(seq) }
                if applied.last.map({ $0 >= 4 }) == true { break }
            }
            return applied
        }
        let shown = Coordinate(lat: 43.7398, lng: 7.4278)
        try driver.move(seq: 2, to: shown)
        try await until(model, "seq 2 on the map") { model.driverLocation?.seq == 2 }
        // Into a garage: the phone has no fix and says so with its keep-alive.
        try driver.keepAliveWithoutFix(seq: 3, at: shown)
        _ = try await driver.next({ if case .ack(let ack) = $0 { ack.seq == 3 } else { false } }, "ack of seq 3")
        // The server kept the last fix as the trip's position, as old as it is.
        let snapshot = try await riderAPI.trip(id: tripID)
        #expect(snapshot.driverLocation?.seq == 2)
        // Out again: the next fix reaches the rider, and the keep-alive never did (frames keep their order).
        try driver.move(seq: 4, to: Coordinate(lat: 43.7397, lng: 7.4277))
        try await until(model, "seq 4 on the map") { model.driverLocation?.seq == 4 }
        let applied = await recorder.value
        #expect(applied.filter { $0 >= 2 } == [2, 4])

        model.stop()
        driver.socket.close()
        await loopback.stop()
    }

    /// Returns once `condition` holds after one of the model's steps; throws after `seconds` of real time.
    func until(_ model: RiderModel, _ what: String, within seconds: Double = 30, _ condition: () -> Bool)
        async throws
    {
        try await HailTesting.until(
            model.changes(), what, within: seconds, state: { "screen \(model.screen)" }, condition)
    }
}
