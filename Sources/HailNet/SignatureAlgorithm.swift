/// The JWS algorithms (RFC 7518) Hail signs and verifies tokens with; nothing else is ever accepted.
public enum SignatureAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"

    /// The smallest RSA modulus accepted, in bits (NIST SP 800-131A).
    public static let minimumRSABits = 2048

    var isEllipticCurve: Bool { self == .es256 }
}
