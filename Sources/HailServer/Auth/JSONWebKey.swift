import HailNet

/// One key of a JWKS (RFC 7517): an EC P-256 key (`x`, `y`) or an RSA key (`n`, `e`), named by `kid`.
public struct JSONWebKey: Codable, Sendable, Hashable {
    /// `EC` or `RSA`.
    public var kty: String
    /// The key id tokens name in their header.
    public var kid: String?
    /// `ES256` or `RS256` when the key says which.
    public var alg: String?
    /// `sig` when the key says what it is for.
    public var use: String?
    /// The curve, `P-256`, for an EC key.
    public var crv: String?
    /// The EC point's x, base64url.
    public var x: String?
    /// The EC point's y, base64url.
    public var y: String?
    /// The RSA modulus, base64url.
    public var n: String?
    /// The RSA public exponent, base64url.
    public var e: String?

    /// A key from its members.
    public init(
        kty: String, kid: String?, alg: String? = nil, use: String? = "sig", crv: String? = nil, x: String? = nil,
        y: String? = nil, n: String? = nil, e: String? = nil
    ) {
        (self.kty, self.kid, self.alg, self.use, self.crv) = (kty, kid, alg, use, crv)
        (self.x, self.y, self.n, self.e) = (x, y, n, e)
    }

    /// The public JWK of `key` with key id `kid` (its RFC 7638 thumbprint when nil).
    public init(publicOf key: SigningKey, kid: String? = nil) {
        let parameters = key.publicParameters
        switch key.algorithm {
        case .es256:
            self.init(
                kty: "EC", kid: nil, alg: "ES256", crv: "P-256", x: Base64URL.encode(parameters["x"] ?? []),
                y: Base64URL.encode(parameters["y"] ?? []))
        case .rs256:
            self.init(
                kty: "RSA", kid: nil, alg: "RS256", n: Base64URL.encode(parameters["n"] ?? []),
                e: Base64URL.encode(parameters["e"] ?? []))
        }
        self.kid = kid ?? thumbprint
    }

    /// The RFC 7638 thumbprint: base64url of SHA-256 over the required members in lexical order.
    public var thumbprint: String {
        let canonical =
            kty == "EC"
            ? #"{"crv":"\#(crv ?? "")","kty":"EC","x":"\#(x ?? "")","y":"\#(y ?? "")"}"#
            : #"{"e":"\#(e ?? "")","kty":"RSA","n":"\#(n ?? "")"}"#
        return Base64URL.encode(SHA256.digest(Array(canonical.utf8)))
    }

    /// The verification key this JWK describes, or why it is not one Hail can use.
    public func verificationKey() throws(KeyProblem) -> VerificationKey {
        if let use, use != "sig" { throw KeyProblem("its use is \"\(use)\", not \"sig\"") }
        switch kty {
        case "EC":
            guard crv == "P-256" else { throw KeyProblem("an EC key must be on P-256 (crv), not \(crv ?? "none")") }
            guard alg == nil || alg == "ES256" else { throw KeyProblem("an EC key's alg must be ES256") }
            guard let x = x.flatMap({ Base64URL.decode($0[...]) }), let y = y.flatMap({ Base64URL.decode($0[...]) })
            else { throw KeyProblem("an EC key needs x and y in base64url") }
            return try VerificationKey.ellipticCurveP256(x: x, y: y)
        case "RSA":
            guard alg == nil || alg == "RS256" else { throw KeyProblem("an RSA key's alg must be RS256") }
            guard let n = n.flatMap({ Base64URL.decode($0[...]) }), let e = e.flatMap({ Base64URL.decode($0[...]) })
            else { throw KeyProblem("an RSA key needs n and e in base64url") }
            return try VerificationKey.rsa(modulus: n, exponent: e)
        default:
            throw KeyProblem("its kty is \"\(kty)\"; only EC (ES256) and RSA (RS256) keys verify tokens")
        }
    }
}
