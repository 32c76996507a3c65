import Foundation
import HailProtocol

/// Mints and verifies bearer tokens.
///
/// Access tokens are JWTs (ES256 or RS256) that the operator's identity provider signs, verified with the public
/// keys of `TokenKeyRing` under `TokenRules`. The server's own secret signs `hail1` tokens: the share links it
/// hands out and, on a server with no key set (the embedded demo and `hail token --secret-file`), every role.
public struct TokenAuthority: Sendable {
    /// The version prefix; bump it to invalidate every token of an older format at once.
    public static let prefix = "hail1"
    /// Longest token accepted, so a hostile header cannot make us decode megabytes.
    public static let maximumLength = 2048

    private let authenticator: any MessageAuthenticator
    private let keys: TokenKeyRing?
    private let rules: TokenRules?
    private let verified = VerifiedSignatures()

    /// Creates an authority over a MAC keyed with the server secret, accepting `hail1` tokens of every role.
    public init(authenticator: any MessageAuthenticator) {
        self.authenticator = authenticator
        self.keys = nil
        self.rules = nil
    }

    /// Creates an authority accepting JWTs signed by `keys` under `rules`, and `hail1` tokens of the server's
    /// secret for share links only.
    public init(authenticator: any MessageAuthenticator, keys: TokenKeyRing, rules: TokenRules) {
        self.authenticator = authenticator
        self.keys = keys
        self.rules = rules
    }

    /// The key set access tokens are verified with, nil when they are the secret's `hail1` tokens.
    public var keyRing: TokenKeyRing? { keys }

    /// Signs `claims` into a token string.
    public func mint(_ claims: AccessToken) -> String {
        let payload = (try? HailJSON.encode(claims)) ?? Data()
        let signed = "\(Self.prefix).\(Base64URL.encode(Array(payload)))"
        return "\(signed).\(Base64URL.encode(authenticator.code(for: Array(signed.utf8))))"
    }

    /// The claims of `token` if its signature is one we accept and it is valid at `now`, else a 401 naming why.
    public func verify(_ token: String, now: Date) throws(APIError) -> AccessToken {
        guard token.hasPrefix(Self.prefix + ".") else {
            guard let keys, let rules else { throw Self.unauthorized("the token is malformed") }
            let (generation, set) = keys.snapshot
            if let claims = verified.claims(of: token, generation: generation) {
                return try JWTVerifier.check(claims, rules: rules, now: now)
            }
            let claims = try JWTVerifier.signedClaims(token, keys: set)
            verified.remember(token, claims: claims, generation: generation)
            return try JWTVerifier.check(claims, rules: rules, now: now)
        }
        let claims = try verifySecretToken(token, now: now)
        guard keys == nil || claims.role == .share else {
            throw Self.unauthorized(
                "this server takes access tokens signed by its key set (JWT); hail1 tokens are for share links only")
        }
        return claims
    }

    private func verifySecretToken(_ token: String, now: Date) throws(APIError) -> AccessToken {
        guard token.utf8.count <= Self.maximumLength else { throw Self.unauthorized("the token is too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.prefix,
            let payload = Base64URL.decode(parts[1]), let mac = Base64URL.decode(parts[2])
        else { throw Self.unauthorized("the token is malformed") }
        let signed = Array("\(parts[0]).\(parts[1])".utf8)
        guard authenticator.matches(authenticator.code(for: signed), mac) else {
            throw Self.unauthorized("the token's signature is not valid")
        }
        guard let claims = try? HailJSON.decode(AccessToken.self, from: Data(payload)) else {
            throw Self.unauthorized("the token's claims cannot be read")
        }
        guard now.timeIntervalSince1970 < TimeInterval(claims.exp) else {
            throw Self.unauthorized("the token has expired")
        }
        return claims
    }

    private static func unauthorized(_ message: String) -> APIError {
        APIError(code: .unauthorized, message: message)
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded URL-safe base64 `text`, or nil when it holds another character or cannot be base64
    /// (a length of 4n+1). Read byte by byte: every request with a token decodes two of these, and the former
    /// way (replacing `-` and `_` and padding a copy of the text for Foundation's decoder) cost more than the MAC.
    /// Like Foundation's decoder, it ignores the unused low bits of a final partial group.
    static func decode(_ text: Substring) -> [UInt8]? {
        let count = text.utf8.count
        guard count % 4 != 1 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * 3 / 4)
        var group: UInt32 = 0
        var filled = 0
        for byte in text.utf8 {
            guard let value = sextet(byte) else { return nil }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                group = 0
                filled = 0
            }
        }
        if filled == 2 {
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        } else if filled == 3 {
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        }
        return bytes
    }

    /// The six bits a character of the URL-safe alphabet stands for.
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
