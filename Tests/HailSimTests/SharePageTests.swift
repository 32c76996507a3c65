import Foundation
import HailClient
import HailCore
import HailProtocol
import HailServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The rider's share page", .serialized)
struct SharePageTests {
    /// A rider's trip, searching, and a share link to it.
    static func sharedTrip(on server: SimServer, rider: String) async throws -> (trip: Trip, link: ShareLinkResponse) {
        let api = RiderHTTPAPI(transport: HTTPTransport(baseURL: server.baseURL, token: server.minter(.rider, rider)))
        let trip = try await api.requestTrip(
            TripRequest(
                pickup: Coordinate(lat: 43.7390, lng: 7.4270), dropoff: Coordinate(lat: 43.7314, lng: 7.4197),
                productID: .economy),
            idempotencyKey: UUID())
        var request = URLRequest(url: server.baseURL.appendingPathComponent(Routes.share(tripID: trip.id)))
        request.httpMethod = "POST"
        request.setValue("Bearer \(server.minter(.rider, rider))", forHTTPHeaderField: HailHeader.authorization)
        let (data, _) = try await URLSession.shared.data(for: request)
        return (trip, try HailJSON.decode(ShareLinkResponse.self, from: data))
    }

    @Test func theLinkOpensALivePageOfThatTripAlone() async throws {
        let server = try await SimServer.start()
        let (trip, link) = try await Self.sharedTrip(on: server, rider: "rider-share")
        let (other, _) = try await Self.sharedTrip(on: server, rider: "rider-other")
        let page = try await server.get("/share/\(link.token)", token: link.token)
        var read = URLRequest(url: server.baseURL.appendingPathComponent(Routes.trip(id: other.id)))
        read.setValue("Bearer \(link.token)", forHTTPHeaderField: HailHeader.authorization)
        let (_, answer) = try await URLSession.shared.data(for: read)
        let otherStatus = (answer as? HTTPURLResponse)?.statusCode
        await server.stop()

        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"data-trip="\#(trip.id)""#))
        #expect(html.contains(#"<script id="share-script">"#))
        #expect(html.contains("Driver's location may be delayed"))
        #expect(!html.contains(other.id))
        // The token reads its own trip and nothing else.
        #expect(otherStatus == 403)
    }

    @Test func anExpiredLinkIsRefusedWithAPageSayingSo() async throws {
        let server = try await SimServer.start()
        let (trip, _) = try await Self.sharedTrip(on: server, rider: "rider-expired")
        let now = Int64(Date().timeIntervalSince1970)
        let expired = server.tokens.mint(
            AccessToken(role: .share, sub: "share-old", exp: now - 60, iat: now - 3600, trip: trip.id))
        let page = try await server.get("/share/\(expired)", token: expired)
        let notAShareToken = try await server.get(
            "/share/\(server.minter(.rider, "rider-expired"))", token: server.minter(.rider, "rider-expired"))
        await server.stop()

        #expect(page.status == 401)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<h1 id="refused">This link has expired.</h1>"#))
        #expect(!html.contains("share-script"))
        #expect(notAShareToken.status == 403)
        #expect(String(decoding: notAShareToken.body, as: UTF8.self).contains("This trip can no longer be followed."))
    }
}
