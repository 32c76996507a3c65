import HailNet

/// HMAC-SHA256 keyed with the server secret, from OpenSSL through HailNet.
public struct HMACAuthenticator: MessageAuthenticator {
    private let secret: [UInt8]

    /// Creates an authenticator over `secret` (at least 32 random bytes).
    public init(secret: [UInt8]) { self.secret = secret }

    /// HMAC-SHA256 of `message`.
    public func code(for message: [UInt8]) -> [UInt8] { HMAC.sha256(key: secret, message: message) }

    /// Constant-time comparison.
    public func matches(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool { HMAC.equal(lhs, rhs) }
}
