/// Why `ServerServices.make` refused to put the services together; `description` says what to change.
public struct ServerServicesError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case mixedScopes
    }

    private let code: Code
    /// The message for the operator (printed at startup).
    public let description: String

    /// Some pieces shared by every node, others this process's own: `shared` and `local` name them.
    static func mixedScopes(shared: [String], local: [String]) -> ServerServicesError {
        ServerServicesError(
            code: .mixedScopes,
            description: "an inconsistent mix of backends: \(shared.joined(separator: ", ")) "
                + (shared.count == 1 ? "is" : "are") + " shared by every node (Redis) but "
                + "\(local.joined(separator: ", ")) " + (local.count == 1 ? "is" : "are")
                + " this process's own; an offer is fenced by its search's lease and a position's write moves the geo "
                + "index, the bus and the ingest state together, so give them all Redis (--redis) or none")
    }

    /// Whether two refusals are of the same kind (tests compare kinds, not wording).
    public var isMixedScopes: Bool { code == .mixedScopes }
}
