import Foundation

/// The route the driver's navigation follows on a trip under way, as the driver's app reported it (at the start and
/// on each re-route): the plan the server judges the car against instead of its own.
public struct ReportedRoute: Codable, Sendable, Hashable {
    /// The app's number for this route: a later route has a greater one, so a report delivered late, or twice, never
    /// replaces a newer one.
    public var revision: Int64
    /// The route from where the car was when it was planned to the drop-off.
    public var path: [Coordinate]
    /// When the server took it (server time).
    public var reportedAt: Date

    /// Creates a reported route.
    public init(revision: Int64, path: [Coordinate], reportedAt: Date) {
        self.revision = revision
        self.path = path
        self.reportedAt = reportedAt
    }
}
