/// The claims of a Hail access token as a JWT: the registered ones Hail checks, and the role and trip scope.
public struct JWTClaims: Codable, Sendable, Hashable {
    /// Issuer.
    public var iss: String?
    /// Subject: the rider's, driver's or operator's account id.
    public var sub: String?
    /// Audience: one string or several (RFC 7519 section 4.1.3).
    public var aud: Audience?
    /// Expiry, seconds since 1970.
    public var exp: Int64?
    /// Not before, seconds since 1970.
    public var nbf: Int64?
    /// Issued at, seconds since 1970.
    public var iat: Int64?
    /// `rider`, `driver`, `operator` or `share`.
    public var role: String?
    /// The one trip a share token reads.
    public var trip: String?

    /// Claims from their members.
    public init(
        iss: String?, sub: String?, aud: Audience?, exp: Int64?, nbf: Int64? = nil, iat: Int64?, role: String?,
        trip: String? = nil
    ) {
        (self.iss, self.sub, self.aud, self.exp, self.nbf, self.iat) = (iss, sub, aud, exp, nbf, iat)
        (self.role, self.trip) = (role, trip)
    }

    /// `aud` as one string or an array of them.
    public struct Audience: Codable, Sendable, Hashable {
        /// The audiences.
        public var values: [String]

        /// The audiences `values`.
        public init(_ values: [String]) { self.values = values }

        /// Decodes a string or an array of strings.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }

        /// Encodes one audience as a string, several as an array.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if values.count == 1 { try container.encode(values[0]) } else { try container.encode(values) }
        }
    }
}
