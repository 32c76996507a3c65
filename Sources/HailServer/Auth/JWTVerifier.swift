import Foundation
import HailNet
import HailProtocol

/// Checks a JWT access token against the keys and rules in force at `now`: pure, no clock and no I/O, so every
/// refusal is tested with exact claims and dates. Each refusal is a 401 naming its reason.
public enum JWTVerifier {
    /// Longest token accepted, so a hostile header cannot make us decode megabytes.
    public static let maximumLength = 8192

    /// The claims of `token` when it is signed by one of `keys` and its claims pass `rules` at `now`.
    public static func verify(_ token: String, keys: [String: TokenKey], rules: TokenRules, now: Date)
        throws(APIError) -> AccessToken
    {
        try check(signedClaims(token, keys: keys), rules: rules, now: now)
    }

    /// The claims of `token` when its header names an accepted algorithm and one of `keys`, and that key's
    /// signature verifies; its claims are not checked yet.
    static func signedClaims(_ token: String, keys: [String: TokenKey]) throws(APIError) -> JWTClaims {
        guard token.utf8.count <= maximumLength else { throw refused("the token is too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(JWTHeader.self, from: Data(headerBytes))
        else { throw refused("the token is malformed") }
        let algorithm = try self.algorithm(header)
        if let crit = header.crit, !crit.isEmpty {
            throw refused("the token's header has critical extensions this server does not understand: \(crit)")
        }
        guard let kid = header.kid, !kid.isEmpty else { throw refused("the token's header names no key (kid)") }
        guard let key = keys[kid] else {
            throw refused("the token's key id \"\(kid.prefix(64))\" is not among this server's keys")
        }
        guard key.key.algorithm == algorithm else {
            throw refused(
                "the token's algorithm \(algorithm.rawValue) is not its key's (\(key.key.algorithm.rawValue))")
        }
        guard let signature = Base64URL.decode(parts[2]),
            key.key.verifies(signature, of: Array("\(parts[0]).\(parts[1])".utf8), algorithm: algorithm)
        else { throw refused("the token's signature is not valid") }
        guard let claimBytes = Base64URL.decode(parts[1]),
            let claims = try? JSONDecoder().decode(JWTClaims.self, from: Data(claimBytes))
        else { throw refused("the token's claims cannot be read") }
        return claims
    }

    /// The algorithm the header names, when it is one Hail accepts: `none` and the HMAC family never are (a
    /// public key used as an HMAC secret is the classic algorithm confusion).
    static func algorithm(_ header: JWTHeader) throws(APIError) -> SignatureAlgorithm {
        guard let name = header.alg else { throw refused("the token's header names no algorithm (alg)") }
        guard let algorithm = SignatureAlgorithm(rawValue: name) else {
            throw refused(
                "the token's algorithm \"\(name.prefix(16))\" is not accepted: tokens are signed with ES256 or RS256")
        }
        return algorithm
    }

    /// The access token the claims grant, when they pass `rules` at `now`.
    static func check(_ claims: JWTClaims, rules: TokenRules, now: Date) throws(APIError) -> AccessToken {
        let time = now.timeIntervalSince1970
        guard claims.iss == rules.issuer else {
            throw refused("the token's issuer (iss) is not \"\(rules.issuer)\"")
        }
        guard let audience = claims.aud, audience.values.contains(rules.audience) else {
            throw refused("the token's audience (aud) does not include \"\(rules.audience)\"")
        }
        guard let exp = claims.exp, let iat = claims.iat else {
            throw refused("the token must carry exp and iat")
        }
        guard time < TimeInterval(exp) + rules.leeway else { throw refused("the token has expired") }
        if let nbf = claims.nbf, time + rules.leeway < TimeInterval(nbf) {
            throw refused("the token is not valid yet (nbf)")
        }
        guard TimeInterval(iat) <= time + rules.leeway else {
            throw refused("the token was issued in the future (iat)")
        }
        guard TimeInterval(exp - iat) <= rules.maximumLifetime else {
            throw refused("the token's lifetime is over \(Int(rules.maximumLifetime)) seconds")
        }
        guard let roleName = claims.role, let role = Role(rawValue: roleName) else {
            throw refused("the token's role must be rider, driver or operator")
        }
        guard let subject = claims.sub, !subject.isEmpty, subject.count <= 128 else {
            throw refused("the token's subject (sub) must be 1 to 128 characters")
        }
        if role == .share, claims.trip == nil { throw refused("a share token must name its trip") }
        return AccessToken(role: role, sub: subject, exp: exp, iat: iat, trip: claims.trip)
    }

    private static func refused(_ message: String) -> APIError { APIError(code: .unauthorized, message: message) }
}
