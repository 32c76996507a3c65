/// Chooses a route provider per cohort of clients from a server setting, so a provider can be switched
/// (or trialled on a cohort) without a release.
///
/// The setting is a comma-separated list of `cohort=provider` pairs, `*` naming the default:
/// `*=graph,beta=straight-line`. A bare provider name (`graph`) sets the default alone. Unknown provider
/// names and malformed pairs are reported in `problems` and ignored; with no usable default the first
/// provider given is the default. Pure: the same setting always gives the same choices.
public struct RouteProviderSelector: Sendable {
    /// The providers by name.
    public let providers: [String: any RouteProvider]
    /// The provider name chosen for each named cohort.
    public let assignments: [String: String]
    /// The provider name for cohorts the setting does not name.
    public let defaultProvider: String
    /// What in the setting was ignored and why, for the server to log.
    public let problems: [String]

    /// Reads `setting` over `providers` (at least one; the first is the fallback default).
    public init(setting: String, providers: [any RouteProvider]) {
        precondition(!providers.isEmpty, "a selector needs at least one provider")
        var byName: [String: any RouteProvider] = [:]
        for provider in providers where byName[provider.name] == nil { byName[provider.name] = provider }
        var assignments: [String: String] = [:]
        var defaultProvider = providers[0].name
        var problems: [String] = []
        for rawPair in setting.split(separator: ",") {
            let pair = rawPair.split(separator: "=", omittingEmptySubsequences: false).map(Self.trimmed)
            let (cohort, name) = pair.count == 1 ? ("*", pair[0]) : (pair[0], pair.count == 2 ? pair[1] : "")
            guard pair.count <= 2, !cohort.isEmpty, !name.isEmpty else {
                problems.append("malformed entry \"\(rawPair)\"")
                continue
            }
            guard byName[name] != nil else {
                problems.append("unknown provider \"\(name)\" for cohort \"\(cohort)\"")
                continue
            }
            if cohort == "*" { defaultProvider = name } else { assignments[cohort] = name }
        }
        self.providers = byName
        self.assignments = assignments
        self.defaultProvider = defaultProvider
        self.problems = problems
    }

    /// The provider for a client's cohort (nil or unknown cohorts get the default).
    public func provider(forCohort cohort: String?) -> any RouteProvider {
        let name = cohort.flatMap { assignments[$0] } ?? defaultProvider
        return providers[name] ?? providers[defaultProvider]!
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
