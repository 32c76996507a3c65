/// The JOSE header of a JWS (RFC 7515 section 4): which algorithm and key signed it.
struct JWTHeader: Codable, Sendable {
    var alg: String?
    var kid: String?
    var typ: String?
    /// Extensions the token says must be understood; Hail understands none, so a token listing any is refused.
    var crit: [String]?
}
