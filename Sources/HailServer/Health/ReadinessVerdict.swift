/// `GET /readyz`'s answer: whether this node should be sent traffic, and each backend's state.
public struct ReadinessVerdict: Codable, Sendable, Hashable {
    /// `ready`, `unavailable` (a backend did not answer) or `draining` (the node is shutting down).
    public var status: String
    /// Each backend's state: `ok`, or why it is not.
    public var backends: [String: String]
    /// The backends that did not answer, by name, sorted; empty when ready.
    public var failed: [String]

    /// True when the node takes traffic.
    public var isReady: Bool { status == "ready" }

    /// A verdict from each backend's state (nil when it answered), and whether the node drains.
    public init(results: [String: String?], draining: Bool) {
        backends = results.mapValues { $0 ?? "ok" }
        failed = results.filter { $0.value != nil }.keys.sorted()
        status = draining ? "draining" : failed.isEmpty ? "ready" : "unavailable"
    }
}
