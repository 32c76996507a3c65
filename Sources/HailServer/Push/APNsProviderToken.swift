import Foundation

/// When to sign a new APNs provider token (JWT) and when to reuse the one in hand. Pure: `now` is a parameter.
///
/// Apple refuses a token older than an hour (403 `ExpiredProviderToken`) and one renewed more often than every
/// 20 minutes (429 `TooManyProviderTokenUpdates`), so a token is reused for at most 50 minutes, and renewed early
/// only when APNs says it expired, and then not within 20 minutes of the last one.
public struct APNsProviderToken: Sendable, Hashable {
    /// The longest a token is reused.
    public static let maximumAge: TimeInterval = 50 * 60
    /// The shortest time between two tokens.
    public static let minimumRenewalInterval: TimeInterval = 20 * 60

    /// What to send with the next request.
    public enum Decision: Sendable, Hashable {
        /// The token issued at this time is still good.
        case reuse(issuedAt: Date)
        /// Sign a new token with this `iat`.
        case issue(at: Date)
    }

    /// When the token in use was issued; nil before the first.
    public private(set) var issuedAt: Date?

    /// No token yet.
    public init() {}

    /// The token for a request at `now`: the current one while younger than `maximumAge`, else a new one
    /// (which becomes the current one).
    public mutating func forRequest(now: Date) -> Decision {
        if let issuedAt, now.timeIntervalSince(issuedAt) < Self.maximumAge {
            return .reuse(issuedAt: issuedAt)
        }
        issuedAt = now
        return .issue(at: now)
    }

    /// APNs answered `ExpiredProviderToken` at `now`: a new token to retry with, or nil when the current one is
    /// younger than `minimumRenewalInterval` (renewing would be refused; the push fails instead).
    public mutating func renewAfterExpiry(now: Date) -> Decision? {
        if let issuedAt, now.timeIntervalSince(issuedAt) < Self.minimumRenewalInterval { return nil }
        issuedAt = now
        return .issue(at: now)
    }
}
