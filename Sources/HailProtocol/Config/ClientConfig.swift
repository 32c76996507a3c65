import HailCore

/// The body of `GET /v1/config`: the flags of the caller's cohort, as the server's flags file sets them.
///
/// Per role: a rider gets `liveStream` and `etaSource`; a driver gets `locationPolicyCap` when one applies.
/// `routeProvider` is the server's own choice for the cohort (estimates, road paths, ETAs), reported so an
/// app's logs can tell. Apps fetch it at launch and on every resync; an app talking to a server without the
/// route (404) uses `defaults(for:)`, which is what a server without a flags file answers.
public struct ClientConfig: Codable, Sendable, Hashable {
    /// Which role the flags are for.
    public enum Role: String, Codable, Sendable, Hashable, CaseIterable {
        /// A rider's app.
        case rider
        /// A driver's app.
        case driver

        /// Reads the role, naming the accepted values when the string is none of them.
        public init(from decoder: any Decoder) throws {
            self = try WireEnum.decode(from: decoder)
        }
    }

    /// Which role the flags are for.
    public var role: Role
    /// The names of the flags file's cohorts that matched the caller, in the file's order (later ones win).
    public var cohorts: [String]
    /// The named area the caller is in (a driver's last position, a rider's pickup), when one matched.
    public var region: String?
    /// Riders: stream or poll, and the poll interval.
    public var liveStream: LiveStreamSetting?
    /// Riders: where the shown ETA comes from.
    public var etaSource: EtaSource?
    /// Drivers: the most their location hardware may be asked for; nil for no cap.
    public var locationPolicyCap: LocationPolicyCap?
    /// The server's route provider for the caller's cohort (`graph` or `straight-line`).
    public var routeProvider: String

    /// Creates a configuration.
    public init(
        role: Role, cohorts: [String] = [], region: String? = nil, liveStream: LiveStreamSetting? = nil,
        etaSource: EtaSource? = nil, locationPolicyCap: LocationPolicyCap? = nil, routeProvider: String
    ) {
        self.role = role
        self.cohorts = cohorts
        self.region = region
        self.liveStream = liveStream
        self.etaSource = etaSource
        self.locationPolicyCap = locationPolicyCap
        self.routeProvider = routeProvider
    }

    /// What an app assumes before the first answer, and from a server that does not know the route:
    /// streaming, the road ETA, no cap.
    public static func defaults(for role: Role) -> ClientConfig {
        switch role {
        case .rider:
            return ClientConfig(role: .rider, liveStream: .stream, etaSource: .roadGraph, routeProvider: "graph")
        case .driver:
            return ClientConfig(role: .driver, routeProvider: "graph")
        }
    }

    /// `liveStream`, or streaming when the answer has none.
    public var liveStreamOrDefault: LiveStreamSetting { liveStream ?? .stream }

    /// `etaSource`, or the road ETA when the answer has none.
    public var etaSourceOrDefault: EtaSource { etaSource ?? .roadGraph }
}
