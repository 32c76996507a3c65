/// Who a token speaks for. Each route names the roles it admits.
public enum Role: String, Codable, Sendable, Hashable, CaseIterable {
    /// A rider's app: their own trips only.
    case rider
    /// A driver's app: their status, positions and the trips assigned to them.
    case driver
    /// An operator: the fleet map and metrics.
    case `operator`
    /// A share link: reads one trip and nothing else, until it expires or the trip ends.
    case share
}

/// The verified identity behind a request.
public struct Principal: Sendable, Hashable, CustomStringConvertible {
    /// The token's role.
    public let role: Role
    /// The account id (rider or driver id; for share tokens, the token's own id).
    public let subject: String
    /// For share tokens, the one trip they may read.
    public let tripID: String?

    /// Creates a principal.
    public init(role: Role, subject: String, tripID: String? = nil) {
        self.role = role
        self.subject = subject
        self.tripID = tripID
    }

    /// `rider:r-1`, for logs.
    public var description: String { "\(role.rawValue):\(subject)" }
}
