import Foundation
import HailNet
import HailProtocol
import HailServer
import Testing

/// The pure verification of JWT access tokens: every refusal the issue names, with its exact reason, and the
/// claims an accepted token grants. No clock and no I/O: `now` is a fixed date.
@Suite struct JWTVerifierTests {
    static let now = Date(timeIntervalSince1970: 1_796_220_000)
    static let issued = Int64(1_796_220_000)
    static let rules = TokenRules(issuer: "https://id.example.com", audience: "hail-prod", leeway: 30)
    let ec: JWTMinter
    let rsa: JWTMinter
    let keys: [String: TokenKey]

    init() throws {
        ec = JWTMinter(
            key: try SigningKey.generate(.es256), keyID: "ec-1", issuer: Self.rules.issuer,
            audience: Self.rules.audience)
        rsa = JWTMinter(
            key: try SigningKey.generate(.rs256), keyID: "rsa-1", issuer: Self.rules.issuer,
            audience: Self.rules.audience)
        keys = try Self.keys(ec, rsa)
    }

    static func keys(_ minters: JWTMinter...) throws -> [String: TokenKey] {
        var keys: [String: TokenKey] = [:]
        for minter in minters {
            keys[minter.keyID] = TokenKey(id: minter.keyID, key: try minter.publicKey.verificationKey())
        }
        return keys
    }

    static func claims(
        iss: String = rules.issuer, aud: [String] = [rules.audience], exp: Int64 = issued + 3600, nbf: Int64? = nil,
        iat: Int64 = issued, role: String = "rider", sub: String = "rider-7", trip: String? = nil
    ) -> JWTClaims {
        JWTClaims(iss: iss, sub: sub, aud: .init(aud), exp: exp, nbf: nbf, iat: iat, role: role, trip: trip)
    }

    func verify(_ token: String, at now: Date = now) throws(APIError) -> AccessToken {
        try JWTVerifier.verify(token, keys: keys, rules: Self.rules, now: now)
    }

    func reason(_ token: String, at now: Date = now) -> String? {
        do throws(APIError) {
            _ = try verify(token, at: now)
            return nil
        } catch {
            return error.code == .unauthorized ? error.message : "not a 401: \(error)"
        }
    }

    @Test func es256AndRS256TokensGrantTheirClaims() throws {
        let expected = AccessToken(role: .rider, sub: "rider-7", exp: Self.issued + 3600, iat: Self.issued)
        #expect(try verify(ec.mint(Self.claims())) == expected)
        #expect(try verify(rsa.mint(Self.claims())) == expected)
        let driver = try verify(ec.mint(Self.claims(aud: ["other", "hail-prod"], role: "driver", sub: "d-1")))
        #expect(driver.principal == Principal(role: .driver, subject: "d-1"))
        let share = try verify(ec.mint(Self.claims(role: "share", sub: "s-1", trip: "trip-9")))
        #expect(share.principal == Principal(role: .share, subject: "s-1", tripID: "trip-9"))
    }

    @Test func expiryAndNotBeforeAreCheckedWithTheLeeway() {
        let token = ec.mint(Self.claims(exp: Self.issued + 60))
        #expect(reason(token, at: Self.now.addingTimeInterval(89)) == nil)
        #expect(reason(token, at: Self.now.addingTimeInterval(90)) == "the token has expired")
        let early = ec.mint(Self.claims(nbf: Self.issued + 100))
        #expect(reason(early, at: Self.now.addingTimeInterval(69)) == "the token is not valid yet (nbf)")
        #expect(reason(early, at: Self.now.addingTimeInterval(70)) == nil)
        let future = ec.mint(Self.claims(exp: Self.issued + 3600, iat: Self.issued + 31))
        #expect(reason(future) == "the token was issued in the future (iat)")
        let long = ec.mint(Self.claims(exp: Self.issued + 86_401))
        #expect(reason(long) == "the token's lifetime is over 86400 seconds")
    }

    @Test func theLeewayIsBounded() {
        #expect(TokenRules(issuer: "i", audience: "a", leeway: 86_400).leeway == 300)
        #expect(TokenRules(issuer: "i", audience: "a", leeway: -5).leeway == 0)
    }

    @Test func anotherAudienceOrIssuerIsRefused() {
        #expect(
            reason(ec.mint(Self.claims(aud: ["hail-staging"])))
                == "the token's audience (aud) does not include \"hail-prod\"")
        #expect(
            reason(ec.mint(Self.claims(iss: "https://evil.example.com")))
                == "the token's issuer (iss) is not \"https://id.example.com\"")
    }

    @Test func anUnknownKeyIDIsRefused() throws {
        let stranger = JWTMinter(
            key: try SigningKey.generate(.es256), keyID: "ec-2", issuer: Self.rules.issuer,
            audience: Self.rules.audience)
        #expect(reason(stranger.mint(Self.claims())) == "the token's key id \"ec-2\" is not among this server's keys")
        // A stranger's key under a known kid: the signature does not verify.
        let impostor = JWTMinter(
            key: try SigningKey.generate(.es256), keyID: "ec-1", issuer: Self.rules.issuer,
            audience: Self.rules.audience)
        #expect(reason(impostor.mint(Self.claims())) == "the token's signature is not valid")
    }

    @Test func algNoneIsRefused() {
        let signed = ec.mint(Self.claims())
        let parts = signed.split(separator: ".")
        let header = Self.base64URL(#"{"alg":"none","kid":"ec-1","typ":"JWT"}"#)
        #expect(
            reason("\(header).\(parts[1]).")
                == "the token's algorithm \"none\" is not accepted: tokens are signed with ES256 or RS256")
        #expect(
            reason("\(header).\(parts[1]).\(parts[2])")
                == "the token's algorithm \"none\" is not accepted: tokens are signed with ES256 or RS256")
    }

    @Test func hs256SignedWithThePublicKeyIsRefused() throws {
        // Algorithm confusion: the attacker HMACs with what is public (the JWK's text, or the point's bytes),
        // hoping the server uses its "key" as an HMAC secret.
        let claims = Self.base64URL(
            #"{"aud":"hail-prod","exp":1796223600,"iat":1796220000,"iss":"https://id.example.com","role":"operator","sub":"mallory"}"#
        )
        for kid in ["ec-1", "rsa-1"] {
            let header = Self.base64URL(#"{"alg":"HS256","kid":"\#(kid)","typ":"JWT"}"#)
            let jwk = kid == "ec-1" ? ec.publicKey : rsa.publicKey
            let secret = Array(JSONWebKeySet(keys: [jwk]).text.utf8)
            let mac = HMAC.sha256(key: secret, message: Array("\(header).\(claims)".utf8))
            #expect(
                reason("\(header).\(claims).\(Self.base64URL(mac))")
                    == "the token's algorithm \"HS256\" is not accepted: tokens are signed with ES256 or RS256")
        }
        // An RS256 header over the EC key's kid is refused too, before any signature is checked.
        let mixed = ec.mint(Self.claims(), algorithm: "RS256")
        #expect(reason(mixed) == "the token's algorithm RS256 is not its key's (ES256)")
    }

    @Test func tamperedClaimsAndMalformedTokensAreRefused() {
        let parts = ec.mint(Self.claims()).split(separator: ".")
        let promoted = Self.base64URL(
            #"{"aud":"hail-prod","exp":1796223600,"iat":1796220000,"iss":"https://id.example.com","role":"operator","sub":"rider-7"}"#
        )
        #expect(reason("\(parts[0]).\(promoted).\(parts[2])") == "the token's signature is not valid")
        #expect(reason("nonsense") == "the token is malformed")
        #expect(reason("a.b") == "the token is malformed")
        #expect(reason(String(repeating: "a", count: 9000)) == "the token is too long")
        #expect(reason(ec.mint(Self.claims(role: "admin"))) == "the token's role must be rider, driver or operator")
        #expect(reason(ec.mint(Self.claims(role: "share"))) == "a share token must name its trip")
        #expect(reason(ec.mint(Self.claims(sub: ""))) == "the token's subject (sub) must be 1 to 128 characters")
    }

    static func base64URL(_ text: String) -> String { base64URL(Array(text.utf8)) }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
