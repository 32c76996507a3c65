import Foundation
import HailCore
import HailProtocol
import HailRoads
import HailTime

/// The server's routing seam: the road network loaded once, and which route provider each cohort of callers
/// gets, as the flags in force say (`routeProvider`, docs/DEPLOY.md "Flags per cohort"; reloaded on SIGHUP).
///
/// Everything here is advice for ETAs, estimates, drawing and dispatch order. It never writes trip state:
/// callers check it (see `RouteEstimator`), fall back to straight lines, and keep the raw fixes as history.
public struct ServerRouting: Sendable {
    /// The road network, nil when the server runs without one.
    public let network: RoadNetwork?
    /// The flags in force, whose `routeProvider` picks the provider per cohort.
    public let flags: FlagsStore
    /// What in the settings was ignored and why, for the operator.
    public let problems: [String]
    /// How far (metres) a published position may be from a road and still be moved onto it.
    public var snapRadius: Double = 25
    /// How many of the geo index's nearest free drivers dispatch re-orders by road ETA.
    public var rankedCandidates = 5
    private let providers: [String: any RouteProvider]

    /// The provider names a server over `network` has: `graph` (with roads) and `straight-line`.
    public static func providerNames(network: RoadNetwork?) -> [String] {
        network == nil ? [RouteEstimator.straightLine.name] : ["graph", RouteEstimator.straightLine.name]
    }

    /// The provider of a caller no flag names: the road graph when there are roads, else the straight line.
    public static func defaultProvider(network: RoadNetwork?) -> String {
        providerNames(network: network)[0]
    }

    /// Routing over `network` (when given), by the cohorts of `flags` (when given; else everyone gets the default
    /// provider).
    public init(network: RoadNetwork?, flags: FlagsStore? = nil) {
        self.init(
            network: network,
            flags: flags
                ?? FlagsStore.load(
                    .none, providers: Self.providerNames(network: network),
                    defaultRouteProvider: Self.defaultProvider(network: network)
                ).store,
            problems: [])
    }

    /// Routing from the configuration's settings; a road file that cannot be read leaves the server on
    /// straight lines, and a flags setting that cannot be read on the default flags; `problems` says why.
    public init(configuration: ServerConfiguration, metrics: ServerMetrics? = nil, time: Timeline? = nil) {
        var problems: [String] = []
        var network: RoadNetwork?
        do {
            network = try RoadNetwork.load(configuration.roads)
        } catch {
            problems.append("road network: \(error)")
        }
        let now: @Sendable () -> Date
        if let time { now = { time.now() } } else { now = { Date() } }
        let (flags, error) = FlagsStore.load(
            configuration.flags, providers: Self.providerNames(network: network),
            defaultRouteProvider: Self.defaultProvider(network: network), metrics: metrics, now: now)
        if let error { problems.append(error.description) }
        self.init(network: network, flags: flags, problems: problems)
    }

    private init(network: RoadNetwork?, flags: FlagsStore, problems: [String]) {
        self.network = network
        self.flags = flags
        self.problems = problems
        var providers: [String: any RouteProvider] = [RouteEstimator.straightLine.name: RouteEstimator.straightLine]
        if let network { providers["graph"] = GraphRouteProvider(router: network.router) }
        self.providers = providers
    }

    /// The provider for a caller (nil: the default), by the flags in force.
    public func provider(for key: CohortKey?) -> any RouteProvider {
        let current = flags.current
        let name = key.map { current.routeProvider(for: $0) } ?? current.defaults.routeProvider
        return providers[name] ?? providers[Self.defaultProvider(network: network)] ?? RouteEstimator.straightLine
    }

    /// The checked estimator for a caller's provider.
    public func estimator(for key: CohortKey?) -> RouteEstimator {
        RouteEstimator(provider: provider(for: key))
    }

    /// The road network when the caller's cohort routes on roads, else nil (positions stay raw).
    public func roads(for key: CohortKey?) -> RoadNetwork? {
        provider(for: key) is GraphRouteProvider ? network : nil
    }

    /// `hits` (nearest first by straight line) with the first `rankedCandidates` re-ordered by road ETA to
    /// `pickup`; ties and the rest keep the geo order. Unchanged without a road network, or when the default
    /// cohort is not routed on roads.
    public func rankedByRoad(_ hits: [GeoHit], to pickup: Coordinate) -> [GeoHit] {
        guard network != nil, rankedCandidates > 1, hits.count > 1 else { return hits }
        let estimator = estimator(for: nil)
        guard estimator.provider is GraphRouteProvider else { return hits }
        let head = hits.prefix(rankedCandidates).enumerated().map { index, hit in
            (hit: hit, index: index, eta: estimator.advice(from: hit.coordinate, to: pickup)?.duration ?? .infinity)
        }
        let ranked = head.sorted { ($0.eta, $0.index) < ($1.eta, $1.index) }.map(\.hit)
        return ranked + hits.dropFirst(rankedCandidates)
    }
}
