import Foundation
import HailAPNs
import HailCore
import HailProtocol
import HailServer
import Testing

@Suite("APNs: provider tokens, answers and requests")
struct APNsPolicyTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_130_000)
    /// A throwaway P-256 key made for these tests; it authorises nothing anywhere.
    static let testKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTvuq+9FfEUAxfiNS
        2WLafoogrEAAHx4aBGyzni++2pqhRANCAAQlndz6h0hlGjNf3r54VLQltn0REP7+
        WkvghRkzeWNa8lHkDn6Jusdxrjemv05dfz/FJMJaM+F3db2plp3qIm/z
        -----END PRIVATE KEY-----
        """
    /// A P-384 key, which ES256 cannot use.
    static let wrongCurveKey = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDBSLqcQ/JLCTreg1Kv5
        cMA9e0KWKO3RSb11+x5p2Bx6TFw3J8zi6UpgWwdWxb5klruhZANiAARKnkwtjPFk
        nvVmKzS5+CSp5mQxO5IsQbX9KKo0yVMhv5dZlgY0sEel+PKepZhnJiI0jEwZ/9zi
        99NYXqvBWf/GXU4duo+US868a8ZdBkXdzl/rpyQKwTg8mycsg+dCZ7w=
        -----END PRIVATE KEY-----
        """

    @Test func aProviderTokenIsReusedForFiftyMinutesThenRenewed() {
        var policy = APNsProviderToken()
        #expect(policy.forRequest(now: Self.t0) == .issue(at: Self.t0))
        let almost = Self.t0.addingTimeInterval(50 * 60 - 1)
        #expect(policy.forRequest(now: almost) == .reuse(issuedAt: Self.t0))
        let fifty = Self.t0.addingTimeInterval(50 * 60)
        #expect(policy.forRequest(now: fifty) == .issue(at: fifty))
        #expect(policy.issuedAt == fifty)
    }

    @Test func anExpiredProviderTokenIsRenewedAtMostOnceEveryTwentyMinutes() {
        var policy = APNsProviderToken()
        _ = policy.forRequest(now: Self.t0)
        #expect(policy.renewAfterExpiry(now: Self.t0.addingTimeInterval(19 * 60 + 59)) == nil)
        #expect(policy.issuedAt == Self.t0)
        let twenty = Self.t0.addingTimeInterval(20 * 60)
        #expect(policy.renewAfterExpiry(now: twenty) == .issue(at: twenty))
        #expect(policy.renewAfterExpiry(now: twenty.addingTimeInterval(60)) == nil)
        #expect(policy.forRequest(now: twenty.addingTimeInterval(60)) == .reuse(issuedAt: twenty))
    }

    @Test(
        arguments: [
            (200, nil, 1, false, APNsAction.delivered),
            (410, "Unregistered", 1, false, .forgetToken(reason: "Unregistered")),
            (400, "BadDeviceToken", 1, false, .forgetToken(reason: "BadDeviceToken")),
            (400, "BadTopic", 1, false, .giveUp(reason: "BadTopic")),
            (413, "PayloadTooLarge", 1, false, .giveUp(reason: "PayloadTooLarge")),
            (403, "ExpiredProviderToken", 1, false, .renewProviderTokenAndRetry),
            (403, "ExpiredProviderToken", 2, true, .giveUp(reason: "ExpiredProviderToken")),
            (403, "InvalidProviderToken", 1, false, .giveUp(reason: "InvalidProviderToken")),
            (429, "TooManyRequests", 1, false, .retry(after: 1)),
            (500, "InternalServerError", 2, false, .retry(after: 2)),
            (503, "ServiceUnavailable", 3, false, .retry(after: 4)),
            (503, "ServiceUnavailable", 4, false, .giveUp(reason: "ServiceUnavailable")),
            (0, nil, 1, false, .retry(after: 1)),
            (0, nil, 4, false, .giveUp(reason: "no answer")),
        ] as [(Int, String?, Int, Bool, APNsAction)])
    func eachAnswerHasOneAction(status: Int, reason: String?, attempt: Int, renewed: Bool, action: APNsAction) {
        #expect(
            APNsAnswer.action(status: status, reason: reason, attempt: attempt, renewedProviderToken: renewed) == action
        )
    }

    @Test func backoffDoublesAndIsCapped() {
        #expect((1...6).map(APNsAnswer.retryDelay(afterAttempt:)) == [1, 2, 4, 8, 8, 8])
        #expect(APNsAnswer.reason(fromBody: Array(#"{"reason":"BadDeviceToken"}"#.utf8)) == "BadDeviceToken")
        #expect(APNsAnswer.reason(fromBody: []) == nil)
        #expect(APNsAnswer.reason(fromBody: Array("<html>".utf8)) == nil)
    }

    @Test func theJWTSigningInputIsPinned() {
        let input = APNsJWT.signingInput(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: Self.t0)
        // base64url of {"alg":"ES256","kid":"ABC123DEFG"} . {"iss":"TEAM123456","iat":1796130000}
        #expect(
            input
                == "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ"
                + ".eyJpc3MiOiJURUFNMTIzNDU2IiwiaWF0IjoxNzk2MTMwMDAwfQ")
        #expect(APNsJWT.base64URL([0xfb, 0xff, 0xfe]) == "-__-")
    }

    @Test func theKeySignsES256AndRefusesWhatItCannotUse() throws {
        let key = try APNsSigningKey(pem: Self.testKey)
        let token = try key.providerToken(keyID: "ABC123DEFG", teamID: "TEAM123456", issuedAt: Self.t0)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let signature = String(parts[2])
        // 64 bytes of r || s: 86 base64url characters, no padding.
        #expect(signature.count == 86)
        #expect(throws: APNsKeyError("its key is not an elliptic-curve P-256 key, which ES256 needs")) {
            try APNsSigningKey(pem: Self.wrongCurveKey)
        }
        #expect(
            throws: APNsKeyError(
                "it holds no PEM private key (an APNs .p8 begins with -----BEGIN PRIVATE KEY-----)")
        ) { try APNsSigningKey(pem: "not a key") }
        #expect(throws: APNsKeyError("there is no APNs key file '/nonexistent/AuthKey_X.p8'")) {
            try APNsSigningKey.load(path: "/nonexistent/AuthKey_X.p8")
        }
    }

    @Test func anAlertRequestIsLaidOutAsAPNsWantsIt() throws {
        var trip = Trip(
            id: "trip-1", state: .driverArrived, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: 3)
        trip.driver = Driver(
            id: "driver-1", name: "Asha", carModel: "Toyota Prius", plate: "HL-204-AB", rating: 4.9,
            photoURL: URL(string: "https://example.invalid/asha.jpg")!)
        let delivery = PushDelivery(
            event: .driverArrived, record: TripRecord(trip: trip, riderID: "rider-1"), now: Self.t0)
        let token = String(repeating: "ab", count: 32)
        let alert = try APNsRequest(
            try #require(delivery.alert), token: token, bundleID: "com.example.rider", jwt: "J.W.T")
        #expect(alert.path == "/3/device/" + token)
        #expect(
            alert.headers.map { "\($0.name): \($0.value)" } == [
                "authorization: bearer J.W.T", "apns-push-type: alert", "apns-topic: com.example.rider",
                "apns-priority: 10", "apns-expiration: 1796130600", "apns-collapse-id: trip-1",
                "content-type: application/json",
            ])
        #expect(
            String(decoding: alert.body, as: UTF8.self)
                == #"{"aps":{"alert":{"body":"Look for Toyota Prius HL-204-AB","title":"Asha is here"},"#
                + #""interruption-level":"time-sensitive","sound":"default","thread-id":"trip-1"},"#
                + #""event":"driverArrived","tripID":"trip-1"}"#)
        let activity = try APNsRequest(
            delivery.liveActivity, token: token, bundleID: "com.example.rider", jwt: "J.W.T")
        #expect(
            activity.headers.map { "\($0.name): \($0.value)" } == [
                "authorization: bearer J.W.T", "apns-push-type: liveactivity",
                "apns-topic: com.example.rider.push-type.liveactivity", "apns-priority: 10",
                "apns-expiration: 1796130120", "content-type: application/json",
            ])
    }
}
