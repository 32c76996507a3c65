import HailCore
import HailProtocol

/// Who is asking, as cohort rules see them: the token's role and subject, the app, version and device from
/// `X-Hail-Client`, and where they are (a driver's last position, a rider's pickup), which the flags' regions
/// turn into an area name.
public struct CohortKey: Sendable, Hashable {
    /// The token's role.
    public var role: Role
    /// The token's subject (rider or driver id), for a rule's `percent`.
    public var subject: String?
    /// What the app said it is.
    public var client: ClientInfo?
    /// Where the caller is, when known.
    public var position: Coordinate?

    /// Creates a key.
    public init(role: Role, subject: String? = nil, client: ClientInfo? = nil, position: Coordinate? = nil) {
        self.role = role
        self.subject = subject
        self.client = client
        self.position = position
    }

    /// A driver, by id, app and position.
    public static func driver(_ id: String?, client: ClientInfo?, at position: Coordinate?) -> CohortKey {
        CohortKey(role: .driver, subject: id, client: client, position: position)
    }

    /// A rider, by id, app and pickup.
    public static func rider(_ id: String?, client: ClientInfo?, at pickup: Coordinate?) -> CohortKey {
        CohortKey(role: .rider, subject: id, client: client, position: pickup)
    }
}
