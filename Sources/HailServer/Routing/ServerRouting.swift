import HailCore
import HailProtocol
import HailRoads

/// The server's routing seam: the road network loaded once, and which route provider each cohort of
/// clients gets (`*=graph,beta=straight-line`).
///
/// Everything here is advice for ETAs, estimates, drawing and dispatch order. It never writes trip state:
/// callers check it (see `RouteEstimator`), fall back to straight lines, and keep the raw fixes as history.
public struct ServerRouting: Sendable {
    /// The road network, nil when the server runs without one.
    public let network: RoadNetwork?
    /// The provider per cohort.
    public let selector: RouteProviderSelector
    /// What in the settings was ignored and why, for the operator.
    public let problems: [String]
    /// How far (metres) a published position may be from a road and still be moved onto it.
    public var snapRadius: Double = 25
    /// How many of the geo index's nearest free drivers dispatch re-orders by road ETA.
    public var rankedCandidates = 5

    /// Routing over `network` (when given) with the cohort setting `cohorts`; an empty setting gives
    /// every client the road graph when there is one, else the straight line.
    public init(network: RoadNetwork?, cohorts: String = "") {
        self.network = network
        var providers: [any RouteProvider] = [RouteEstimator.straightLine]
        if let network { providers.insert(GraphRouteProvider(router: network.router), at: 0) }
        selector = RouteProviderSelector(setting: cohorts, providers: providers)
        problems = selector.problems
    }

    /// Routing from the configuration's settings; a road file that cannot be read leaves the server on
    /// straight lines and says why in `problems`.
    public init(configuration: ServerConfiguration) {
        do {
            self.init(network: try RoadNetwork.load(configuration.roads), cohorts: configuration.routeCohorts)
        } catch {
            let fallback = ServerRouting(network: nil, cohorts: configuration.routeCohorts)
            self.init(
                network: nil, selector: fallback.selector, problems: ["road network: \(error)"] + fallback.problems)
        }
    }

    private init(network: RoadNetwork?, selector: RouteProviderSelector, problems: [String]) {
        self.network = network
        self.selector = selector
        self.problems = problems
    }

    /// The provider for a client, by the first of its cohort names the setting assigns (see `RouteCohort`).
    public func provider(for client: ClientInfo?) -> any RouteProvider {
        let cohort = RouteCohort.names(for: client).first { selector.assignments[$0] != nil }
        return selector.provider(forCohort: cohort)
    }

    /// The checked estimator for a client's provider.
    public func estimator(for client: ClientInfo?) -> RouteEstimator {
        RouteEstimator(provider: provider(for: client))
    }

    /// The road network when the client's cohort routes on roads, else nil (positions stay raw).
    public func roads(for client: ClientInfo?) -> RoadNetwork? {
        provider(for: client) is GraphRouteProvider ? network : nil
    }

    /// `hits` (nearest first by straight line) with the first `rankedCandidates` re-ordered by road ETA to
    /// `pickup`; ties and the rest keep the geo order. Unchanged without a road network.
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
