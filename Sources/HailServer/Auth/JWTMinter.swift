import Foundation
import HailNet
import HailProtocol

/// Mints JWT access tokens with a private key: what an operator's backend does, here for `hail token`, the demo
/// and the tests.
public struct JWTMinter: Sendable {
    /// The default lifetime of an access token: one hour, refreshed by the app from the operator's backend.
    public static let defaultLifetime: TimeInterval = 3600

    /// The signing key.
    public let key: SigningKey
    /// The `kid` put in each token's header.
    public let keyID: String
    /// The `iss` claim.
    public let issuer: String
    /// The `aud` claim.
    public let audience: String

    /// A minter for `key`, named `keyID` (its JWK thumbprint when nil).
    public init(key: SigningKey, keyID: String? = nil, issuer: String, audience: String) {
        self.key = key
        self.keyID = keyID ?? JSONWebKey(publicOf: key).thumbprint
        self.issuer = issuer
        self.audience = audience
    }

    /// The public JWK of this minter's key, under its `keyID`.
    public var publicKey: JSONWebKey { JSONWebKey(publicOf: key, kid: keyID) }

    /// A token granting `claims` (their `exp` and `iat`), signed.
    public func mint(_ claims: AccessToken) -> String {
        mint(
            JWTClaims(
                iss: issuer, sub: claims.sub, aud: .init([audience]), exp: claims.exp, iat: claims.iat,
                role: claims.role.rawValue, trip: claims.trip))
    }

    /// A token for `role` and `subject`, issued at `now` and valid for `lifetime` seconds.
    public func mint(role: Role, subject: String, now: Date, lifetime: TimeInterval = defaultLifetime) -> String {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        return mint(AccessToken(role: role, sub: subject, exp: issued + Int64(lifetime), iat: issued))
    }

    /// The raw claims signed as given (tests use it for tokens that must be refused).
    public func mint(_ claims: JWTClaims, algorithm name: String? = nil, keyID: String? = nil) -> String {
        let header = JWTHeader(alg: name ?? key.algorithm.rawValue, kid: keyID ?? self.keyID, typ: "JWT")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signed =
            Base64URL.encode(Array((try? encoder.encode(header)) ?? Data())) + "."
            + Base64URL.encode(Array((try? encoder.encode(claims)) ?? Data()))
        return signed + "." + Base64URL.encode(key.sign(Array(signed.utf8)))
    }
}
