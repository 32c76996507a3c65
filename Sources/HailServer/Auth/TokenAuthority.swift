import Foundation
import HailProtocol

/// Mints and verifies bearer tokens.
public struct TokenAuthority: Sendable {
    /// The version prefix; bump it to invalidate every token of an older format at once.
    public static let prefix = "hail1"
    /// Longest token accepted, so a hostile header cannot make us decode megabytes.
    public static let maximumLength = 2048

    private let authenticator: any MessageAuthenticator

    /// Creates an authority over a MAC keyed with the server secret.
    public init(authenticator: any MessageAuthenticator) { self.authenticator = authenticator }

    /// Signs `claims` into a token string.
    public func mint(_ claims: AccessToken) -> String {
        let payload = (try? HailJSON.encode(claims)) ?? Data()
        let signed = "\(Self.prefix).\(Base64URL.encode(Array(payload)))"
        return "\(signed).\(Base64URL.encode(authenticator.code(for: Array(signed.utf8))))"
    }

    /// The claims of `token` if its signature is ours and it has not expired at `now`, else a 401 error.
    public func verify(_ token: String, now: Date) throws(APIError) -> AccessToken {
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

    static func decode(_ text: Substring) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({ byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45
                    || byte == 95
            })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
