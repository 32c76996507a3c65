import Foundation
import HailNet
import HailProtocol
import HailServer
import Testing

/// A key rotates with no logout: the JWKS file holds the old and the new key while tokens of both are in use,
/// then drops the old one. The ring reads the real file, as `hail server` does on SIGHUP and at its interval.
@Suite struct KeyRotationTests {
    static let rules = TokenRules(issuer: TokenRules.defaultIssuer, audience: TokenRules.defaultAudience)

    static func write(_ minters: [JWTMinter], to path: String) throws {
        try Data(JSONWebKeySet(keys: minters.map(\.publicKey)).text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func reason(_ authority: TokenAuthority, _ token: String, now: Date) -> String? {
        do throws(APIError) {
            _ = try authority.verify(token, now: now)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func aRotationKeepsOldAndNewTokensValidThenDropsTheOld() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-jwks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("jwks.json").path
        let old = JWTMinter(key: try SigningKey.generate(.es256), keyID: "2026-11", issuer: "hail", audience: "hail")
        let new = JWTMinter(key: try SigningKey.generate(.rs256), keyID: "2026-12", issuer: "hail", audience: "hail")
        try Self.write([old], to: path)
        let ring = try TokenKeyRing(path: path)
        let authority = TokenAuthority(
            authenticator: HMACAuthenticator(secret: SecureRandom.bytes(32)), keys: ring, rules: Self.rules)
        let now = Date()
        let oldToken = old.mint(role: .rider, subject: "rider-1", now: now)
        let newToken = new.mint(role: .driver, subject: "driver-1", now: now)
        #expect(Self.reason(authority, oldToken, now: now) == nil)
        // Verified once, still checked against the clock every time.
        #expect(Self.reason(authority, oldToken, now: now.addingTimeInterval(3_660)) == "the token has expired")
        #expect(
            Self.reason(authority, newToken, now: now)
                == "the token's key id \"2026-12\" is not among this server's keys")

        try Self.write([old, new], to: path)
        #expect(try ring.reload() == ["2026-11", "2026-12"])
        #expect(Self.reason(authority, oldToken, now: now) == nil)
        #expect(try authority.verify(newToken, now: now).principal == Principal(role: .driver, subject: "driver-1"))

        // A bad file changes nothing: both keys stay in force.
        try Data(#"{"keys":[{"kty":"EC","kid":"broken","crv":"P-256","x":"AA","y":"AA"}]}"#.utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(throws: KeyProblem.self) { try ring.reload() }
        #expect(ring.current.keys.sorted() == ["2026-11", "2026-12"])

        try Self.write([new], to: path)
        #expect(try ring.reload() == ["2026-12"])
        #expect(
            Self.reason(authority, oldToken, now: now)
                == "the token's key id \"2026-11\" is not among this server's keys")
        #expect(Self.reason(authority, newToken, now: now) == nil)
    }

    @Test func aKeySetWithABadKeyIsRefusedWithItsName() throws {
        func problem(_ json: String) -> String? {
            do throws(KeyProblem) {
                _ = try JSONWebKeySet.tokenKeys(from: Data(json.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem(#"{"keys":[]}"#) == "it holds no keys")
        #expect(
            problem(#"{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}"#)
                == "key \"h\": its kty is \"oct\"; only EC (ES256) and RSA (RS256) keys verify tokens")
        #expect(problem(#"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}"#) == "key 1 has no kid")
        #expect(
            problem(#"{"keys":[{"kty":"EC","kid":"p","crv":"P-384","x":"AA","y":"AA"}]}"#)
                == "key \"p\": an EC key must be on P-256 (crv), not P-384")
        // A point off the curve is refused by OpenSSL: (1, 1) is not on P-256.
        let one = Data([UInt8](repeating: 0, count: 31) + [1]).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        #expect(
            problem(#"{"keys":[{"kty":"EC","kid":"off","crv":"P-256","x":"\#(one)","y":"\#(one)"}]}"#)
                == "key \"off\": x and y are not a point on P-256 (32 bytes each)")
    }

    @Test func hail1TokensServeShareLinksOnlyOnceAKeySetIsInForce() throws {
        let secret = HMACAuthenticator(secret: SecureRandom.bytes(32))
        let minter = JWTMinter(key: try SigningKey.generate(.es256), issuer: "hail", audience: "hail")
        let ring = TokenKeyRing(keys: [
            minter.keyID: TokenKey(id: minter.keyID, key: try minter.publicKey.verificationKey())
        ])
        let withKeys = TokenAuthority(authenticator: secret, keys: ring, rules: Self.rules)
        let now = Date()
        let issued = Int64(now.timeIntervalSince1970)
        let rider = withKeys.mint(AccessToken(role: .rider, sub: "rider-1", exp: issued + 60, iat: issued))
        let share = withKeys.mint(AccessToken(role: .share, sub: "s-1", exp: issued + 60, iat: issued, trip: "t-1"))
        #expect(
            Self.reason(withKeys, rider, now: now)
                == "this server takes access tokens signed by its key set (JWT); hail1 tokens are for share links only")
        #expect(
            try withKeys.verify(share, now: now).principal == Principal(role: .share, subject: "s-1", tripID: "t-1"))
        // Without a key set (the embedded demo) the secret's tokens serve every role, and a JWT is not understood.
        let secretOnly = TokenAuthority(authenticator: secret)
        #expect(try secretOnly.verify(rider, now: now).principal == Principal(role: .rider, subject: "rider-1"))
        #expect(
            Self.reason(secretOnly, minter.mint(role: .rider, subject: "rider-1", now: now), now: now)
                == "the token is malformed")
    }
}
