/// Computes and compares message authentication codes; the live one is HMAC-SHA256 from libwebsockets'
/// OpenSSL backend (`HailNet.HMAC`), never hand-written crypto.
public protocol MessageAuthenticator: Sendable {
    /// The code for `message`.
    func code(for message: [UInt8]) -> [UInt8]
    /// True when the two codes are equal, compared in constant time.
    func matches(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool
}
