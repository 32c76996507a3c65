import Foundation
import HailAppSeams
import HailClient
import HailCore
import HailNet
import HailNetTransport
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

@testable import HailRider

/// The operator's backend as the app sees it: it hands out access tokens of an hour, minted with its private key on
/// the server's timeline, and a new one once the one it holds is within five minutes of expiring.
final class TokenBackend: AccessTokenProvider {
    let minter: JWTMinter
    let now: @Sendable () -> Date
    private let state = Mutex<(token: String, exp: Date, minted: [String], refreshes: Int)>(("", .distantPast, [], 0))

    init(minter: JWTMinter, now: @escaping @Sendable () -> Date) {
        self.minter = minter
        self.now = now
    }

    /// Every token handed out, in order.
    var minted: [String] { state.withLock { $0.minted } }
    /// How many times a refused token was replaced.
    var refreshes: Int { state.withLock { $0.refreshes } }

    /// Hands out `token` as the one held (a stale one, to make the server refuse it).
    func hold(_ token: String, until exp: Date) { state.withLock { ($0.token, $0.exp) = (token, exp) } }

    func currentToken() async throws(CallError) -> String {
        let now = now()
        return state.withLock { state in
            if state.exp.timeIntervalSince(now) < 300 { mint(&state, now: now) }
            return state.token
        }
    }

    func refreshedToken(after rejected: String) async throws(CallError) -> String {
        let now = now()
        return state.withLock { state in
            state.refreshes += 1
            if state.token == rejected { mint(&state, now: now) }
            return state.token
        }
    }

    private func mint(_ state: inout (token: String, exp: Date, minted: [String], refreshes: Int), now: Date) {
        state.token = minter.mint(role: .rider, subject: "rider-1", now: now)
        state.exp = now.addingTimeInterval(JWTMinter.defaultLifetime)
        state.minted.append(state.token)
    }
}

/// A libwebsockets transport whose open streams the test can cut, as a phone's network drops, and which notes the
/// `Authorization` each stream was opened with.
final class CuttableTransport: SocketTransport {
    private let inner: NetSocketTransport
    private let opened = Mutex<[(authorization: String, stream: any SocketStream)]>([])

    init() throws { inner = try NetSocketTransport() }

    /// The `Authorization` of every stream opened, in order.
    var authorizations: [String] { opened.withLock { $0.map(\.authorization) } }

    func open(_ url: String, headers: [(name: String, value: String)]) async throws(CallError) -> any SocketStream {
        let stream = try await inner.open(url, headers: headers)
        let authorization = headers.first { $0.name == HailHeader.authorization }?.value ?? ""
        opened.withLock { $0.append((authorization, stream)) }
        return stream
    }

    /// Cuts every stream opened so far (close 4000: not a normal end, so the app reconnects).
    func cutAll() { for (_, stream) in opened.withLock({ $0 }) { stream.close(code: 4000, reason: "network lost") } }

    func shutdown() async { await inner.shutdown() }
}

@Suite("An access token that expires mid-trip", .serialized)
@MainActor
struct TokenRefreshLiveTests {
    @Test func aRiderWhoseTokenExpiresMidTripReconnectsWithANewOneAndLosesNothing() async throws {
        // The server's dates run an offset ahead of the wall clock, which the test moves by an hour at once.
        let offset = Mutex<TimeInterval>(0)
        let time = Timeline(clock: ContinuousClock(), now: { Date().addingTimeInterval(offset.withLock { $0 }) })
        let minter = JWTMinter(key: try SigningKey.generate(.es256), issuer: "hail", audience: "hail")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-refresh-\(UUID()).db").path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.tokenKeys = TokenKeyRing(keys: [
            minter.keyID: TokenKey(id: minter.keyID, key: try minter.publicKey.verificationKey())
        ])
        let server = try await BackendServer.start(options, time: time)
        let base = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let transport = try CuttableTransport()
        let connector = SocketConnector(transport: transport)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }

        // The driver's token outlives the test's hour; the rider's comes from the backend, an hour at a time.
        let driverToken = minter.mint(role: .driver, subject: "driver-1", now: time.now(), lifetime: 86_400)
        let driverHTTP = HTTPTransport(baseURL: base, token: driverToken)
        let driver = ScriptedDriver(
            http: driverHTTP,
            socket: try await connector.connect(
                RiderLiveChannel(baseURL: base, token: driverToken, connector: connector).socketURL(
                    Routes.driverLive.template), token: driverToken))
        _ = try await driver.next({ if case .hello = $0 { true } else { false } }, "driver hello")
        try await driver.goOnline()
        try driver.move(seq: 1, to: Coordinate(lat: 43.7400, lng: 7.4280))
        _ = try await driver.next({ if case .ack = $0 { true } else { false } }, "ack of seq 1")

        let backend = TokenBackend(minter: minter, now: { time.now() })
        let model = RiderModel(
            api: RiderHTTPAPI(transport: HTTPTransport(baseURL: base, tokens: backend)),
            channel: RiderLiveChannel(baseURL: base, tokens: backend, connector: connector),
            cursors: InMemoryCursorStore())
        // The phases the screen went through, up to the trip's end: awaited whole, so the list is not read while
        // the recorder is still behind the model.
        let recorder = Task { @MainActor in
            var phases: [RiderScreen.Phase] = []
            for await screen in model.changes() where phases.last != screen.phase {
                phases.append(screen.phase)
                if screen.phase == .completed { break }
            }
            return phases
        }
        model.screenVisibilityChanged(true)
        await model.launch()
        await model.requestRide(
            pickup: Coordinate(lat: 43.7396, lng: 7.4276), dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
            product: .economy)
        let tripID = try #require(model.trip?.id)
        _ = try await driver.next({ if case .offer = $0 { true } else { false } }, "offer")
        try await driver.accept(tripID)
        try await until(model, "driver assigned") { model.screen.phase == .driverAssigned }
        let first = try #require(backend.minted.first)
        #expect(backend.minted.count == 1)

        // An hour and a minute later (the leeway is 60 s): the rider's token has expired, and the phone's network
        // drops the stream. The driver's reports reach the server while the rider is away.
        offset.withLock { $0 = 3_661 }
        do {
            _ = try await HTTPTransport(baseURL: base, token: first).send("GET", Routes.activeTrip.template)
            Issue.record("the expired token was accepted")
        } catch {
            #expect(error.status == 401)
            #expect(error.apiError?.message == "the token has expired")
        }
        transport.cutAll()
        try await driver.report(.arrived, tripID: tripID)
        try await until(model, "arrived") { model.screen.phase == .driverArrived }
        try await driver.report(.started, tripID: tripID)
        try await until(model, "on trip") { model.screen.phase == .onTrip }
        try await driver.report(.ended, tripID: tripID)
        try await until(model, "completed") { model.screen.phase == .completed }

        let phases = await recorder.value
        #expect(phases == [.idle, .searching, .driverAssigned, .driverArrived, .onTrip, .completed])
        #expect(backend.minted.count == 2)
        let second = try #require(backend.minted.last)
        // The streams opened with the first token before the cut, and with the second after it, never the first.
        let riderStreams = transport.authorizations.filter { $0 != BearerToken.headerValue(driverToken) }
        #expect(riderStreams.first == BearerToken.headerValue(first))
        #expect(riderStreams.last == BearerToken.headerValue(second))
        let afterCut = riderStreams.drop { $0 == BearerToken.headerValue(first) }
        #expect(!afterCut.isEmpty && afterCut.allSatisfy { $0 == BearerToken.headerValue(second) })

        model.stop()
        driver.socket.close()
        await connector.shutdown()
        await server.shutdown()
    }

    @Test func aCallRefusedAs401IsSentOnceMoreWithARefreshedToken() async throws {
        let minter = JWTMinter(key: try SigningKey.generate(.es256), issuer: "hail", audience: "hail")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-refresh-\(UUID()).db").path
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        options.tokenKeys = TokenKeyRing(keys: [
            minter.keyID: TokenKey(id: minter.keyID, key: try minter.publicKey.verificationKey())
        ])
        let server = try await BackendServer.start(options)
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let base = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let backend = TokenBackend(minter: minter, now: { Date() })
        // The backend believes its token good for an hour more, but the server's clock says it expired.
        let stale = minter.mint(role: .rider, subject: "rider-1", now: Date().addingTimeInterval(-7_200))
        backend.hold(stale, until: Date().addingTimeInterval(3_600))
        let answer = try await HTTPTransport(baseURL: base, tokens: backend).send("GET", Routes.activeTrip.template)
        #expect(answer.status == 204)
        #expect(backend.refreshes == 1)
        #expect(backend.minted.count == 1)
        await server.shutdown()
    }

    func until(_ model: RiderModel, _ what: String, within seconds: Double = 30, _ condition: () -> Bool)
        async throws
    {
        try await HailTesting.until(
            model.changes(), what, within: seconds, state: { "screen \(model.screen)" }, condition)
    }
}
