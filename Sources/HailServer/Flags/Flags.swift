import HailCore
import HailProtocol

/// The flags in force: named regions, the defaults, and the cohort rules in the file's order.
///
/// A caller's flags are the defaults with every matching cohort's settings applied in order, so a later cohort
/// wins where two set the same flag. Pure: `resolve` reads nothing but the key and these values, so the same
/// file gives every node the same answers. See docs/DEPLOY.md, "Flags per cohort".
public struct Flags: Sendable, Hashable {
    /// What one caller gets.
    public struct Resolution: Sendable, Hashable {
        /// The flags.
        public var values: FlagValues
        /// The cohorts that matched, in order.
        public var cohorts: [String]
        /// The caller's region, when one holds their position.
        public var region: String?
    }

    /// The named areas.
    public var regions: RegionMap
    /// The flags of a caller no cohort matches.
    public var defaults: FlagValues
    /// The cohorts, in the file's order.
    public var cohorts: [CohortRule]
    /// The cohorts that set the route provider, which the ingest path asks about for every published position.
    private let routeRules: [CohortRule]

    /// Flags of `defaults`, `cohorts` and `regions`.
    public init(defaults: FlagValues, cohorts: [CohortRule] = [], regions: RegionMap = RegionMap()) {
        self.defaults = defaults
        self.cohorts = cohorts
        self.regions = regions
        routeRules = cohorts.filter { $0.overrides.routeProvider != nil }
    }

    /// No file: everyone streams, sees the road ETA, has no cap, and is routed by `routeProvider`.
    public init(routeProvider: String) {
        self.init(defaults: FlagValues(routeProvider: routeProvider))
    }

    /// The flags of `key`'s cohorts.
    public func resolve(_ key: CohortKey) -> Resolution {
        let region = regions.region(containing: key.position)
        var values = defaults
        var names: [String] = []
        for rule in cohorts where rule.matches(key, region: region) {
            values = values.applying(rule.overrides)
            names.append(rule.name)
        }
        return Resolution(values: values, cohorts: names, region: region)
    }

    /// The route provider of `key`'s cohorts: `resolve(key).values.routeProvider`, looking only at the rules that
    /// set it (usually none), and at the region only when one of them asks.
    public func routeProvider(for key: CohortKey) -> String {
        guard !routeRules.isEmpty else { return defaults.routeProvider }
        let region = routeRules.contains(where: \.needsRegion) ? regions.region(containing: key.position) : nil
        var provider = defaults.routeProvider
        for rule in routeRules where rule.matches(key, region: region) {
            if let name = rule.overrides.routeProvider { provider = name }
        }
        return provider
    }

    /// The region holding `coordinate`, for metrics' `region` label.
    public func region(containing coordinate: Coordinate?) -> String? {
        regions.region(containing: coordinate)
    }

    /// What `GET /v1/config` answers `key`.
    public func config(for key: CohortKey) -> ClientConfig {
        let resolution = resolve(key)
        let values = resolution.values
        switch key.role {
        case .driver:
            return ClientConfig(
                role: .driver, cohorts: resolution.cohorts, region: resolution.region,
                locationPolicyCap: values.locationPolicyCap, routeProvider: values.routeProvider)
        default:
            return ClientConfig(
                role: .rider, cohorts: resolution.cohorts, region: resolution.region, liveStream: values.liveStream,
                etaSource: values.etaSource, routeProvider: values.routeProvider)
        }
    }
}
