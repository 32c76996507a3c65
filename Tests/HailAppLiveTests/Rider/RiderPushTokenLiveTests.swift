import Foundation
import HailClient
import HailCore
import HailNet
import HailNetTransport
import HailProtocol
import HailRider
import HailServer
import Testing

@Suite("The rider's push tokens over the real wire")
@MainActor
struct RiderPushTokenLiveTests {
    static let deviceToken = Data((0..<32).map { UInt8($0 * 7 & 0xff) })
    static let deviceHex = "00070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9"
    static let activityToken = Data(repeating: 0xab, count: 40)

    @Test func overTheRealWireTheServerStoresBothAndGetsThemBackAfterForgettingThem() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hail-rider-push-\(UUID()).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = BackendServer.Options()
        options.port = 0
        options.databasePath = path
        options.secret = SecureRandom.bytes(32)
        options.log = nil
        let server = try await BackendServer.start(options)
        defer { Task { await server.shutdown() } }
        let issued = Int64(Date().timeIntervalSince1970)
        let token = TokenAuthority(authenticator: HMACAuthenticator(secret: options.secret)).mint(
            AccessToken(role: .rider, sub: "rider-1", exp: issued + 3600, iat: issued))
        let base = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
        let connector = SocketConnector(transport: try NetSocketTransport())
        let model = RiderModel(
            api: RiderHTTPAPI(transport: HTTPTransport(baseURL: base, token: token)),
            channel: RiderLiveChannel(baseURL: base, token: token, connector: connector),
            cursors: InMemoryCursorStore())
        let trips = server.services.trips
        await model.deviceTokenReceived(Self.deviceToken, environment: .sandbox)
        #expect(try await trips.device(principal: "rider:rider-1")?.token == Self.deviceHex)
        #expect(try await trips.device(principal: "rider:rider-1")?.environment == .sandbox)
        await model.requestRide(
            pickup: Coordinate(lat: 43.7396, lng: 7.4276), dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
            product: .economy)
        let tripID = try #require(model.trip?.id)
        await model.liveActivityTokenReceived(Self.activityToken, for: tripID)
        #expect(try await trips.liveActivity(tripID: tripID)?.token == String(repeating: "ab", count: 40))
        // APNs called both dead and the server forgot them; the app's next resync registers them again.
        try await trips.removePushToken(Self.deviceHex)
        try await trips.removeLiveActivity(tripID: tripID)
        await model.launch()
        #expect(try await trips.device(principal: "rider:rider-1")?.token == Self.deviceHex)
        #expect(try await trips.liveActivity(tripID: tripID)?.riderID == "rider-1")
        model.stop()
    }
}
