import HailProtocol

/// The cohort names a client answers to in the route-provider setting, most specific first.
///
/// Cohorts come from `X-Hail-Client` rather than a token claim: every request and stream already carries
/// it (location batches included), a release or a beta build is exactly the unit a provider is trialled
/// on, and switching a cohort needs no token re-issued. A client may be named as `app/version`
/// (`hail-rider/1.4.0`), as `app` (`hail-rider`), or by its version's pre-release label (`beta` for
/// `1.5.0-beta.2`).
public enum RouteCohort {
    /// The names to look up for `client`, most specific first; empty for an anonymous client.
    public static func names(for client: ClientInfo?) -> [String] {
        guard let client else { return [] }
        var names: [String] = []
        if let version = client.version {
            names.append("\(client.app)/\(version)")
        }
        names.append(client.app)
        if let version = client.version, let dash = version.firstIndex(of: "-") {
            let label = version[version.index(after: dash)...].prefix { $0 != "." && $0 != "+" }
            if !label.isEmpty { names.append(String(label)) }
        }
        return names
    }
}
