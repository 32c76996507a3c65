import Foundation

/// What a JWT's registered claims must say to be accepted (RFC 7519 section 4.1).
public struct TokenRules: Sendable, Hashable {
    /// The issuer `hail token` and `hail keys` use unless told another.
    public static let defaultIssuer = "hail"
    /// The audience `hail token` and a server use unless told another.
    public static let defaultAudience = "hail"

    /// The largest clock skew allowed between the issuer and a node, in seconds.
    public static let maximumLeeway: TimeInterval = 300

    /// The `iss` every token must carry: the operator's identity provider.
    public var issuer: String
    /// The `aud` every token must include: this deployment.
    public var audience: String
    /// Seconds of clock skew forgiven on `exp`, `nbf` and `iat`, at most `maximumLeeway`.
    public private(set) var leeway: TimeInterval
    /// The longest `exp - iat` accepted, so a leaked signing key cannot mint a token for a year.
    public var maximumLifetime: TimeInterval

    /// Rules for `issuer` and `audience`; `leeway` is clamped to 0...300 seconds.
    public init(issuer: String, audience: String, leeway: TimeInterval = 60, maximumLifetime: TimeInterval = 86_400) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = min(max(leeway, 0), Self.maximumLeeway)
        self.maximumLifetime = maximumLifetime
    }
}
