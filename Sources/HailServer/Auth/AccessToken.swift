import Foundation

/// The signed claims inside a bearer token.
///
/// Wire form: `hail1.<claims>.<mac>`, where `<claims>` is the base64url of the claims' JSON and `<mac>` the
/// base64url of HMAC-SHA256 over `hail1.<claims>` with the server secret. Self-contained, so any node that
/// holds the secret verifies it without a lookup.
public struct AccessToken: Codable, Sendable, Hashable {
    /// The role the token grants.
    public var role: Role
    /// The subject: a rider or driver id, or a share token's id.
    public var sub: String
    /// Expiry, seconds since 1970 (UTC).
    public var exp: Int64
    /// Issue time, seconds since 1970 (UTC).
    public var iat: Int64
    /// For share tokens: the one trip they read.
    public var trip: String?

    /// Creates claims.
    public init(role: Role, sub: String, exp: Int64, iat: Int64, trip: String? = nil) {
        self.role = role
        self.sub = sub
        self.exp = exp
        self.iat = iat
        self.trip = trip
    }

    /// The principal these claims describe.
    public var principal: Principal { Principal(role: role, subject: sub, tripID: trip) }

    /// The expiry as a date.
    public var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(exp)) }
}
