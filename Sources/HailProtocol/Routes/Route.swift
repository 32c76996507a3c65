/// One endpoint of the API: a method and a path template such as `/v1/trips/{id}/cancel`.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// A stable name for logs and metrics, such as `cancelTrip`.
    public let name: String
    /// The request method; `GET` for WebSocket upgrades.
    public let method: HTTPMethod
    /// The path with `{name}` placeholders, each a whole segment.
    public let template: String
    /// Who may call it.
    public let access: Access
    /// True when the route upgrades to a WebSocket.
    public let isWebSocket: Bool
    /// True when the request must carry an `Idempotency-Key` header.
    public let requiresIdempotencyKey: Bool

    /// Creates a route.
    public init(
        name: String, method: HTTPMethod, template: String, access: Access, isWebSocket: Bool = false,
        requiresIdempotencyKey: Bool = false
    ) {
        self.name = name
        self.method = method
        self.template = template
        self.access = access
        self.isWebSocket = isWebSocket
        self.requiresIdempotencyKey = requiresIdempotencyKey
        self.segments = Route.split(template).map { segment in
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(String(segment))
        }
    }

    /// The template split at slashes; `/` has none.
    let segments: [Segment]

    /// The names of the template's parameters, in order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } }
    }

    /// `POST /v1/trips/{id}/cancel`.
    public var description: String { "\(method) \(template)" }

    /// The concrete path for these parameter values, each percent-encoded as one segment.
    ///
    /// A parameter missing from `parameters` is left as its placeholder, which no matcher accepts.
    public func path(_ parameters: [String: String] = [:]) -> String {
        guard !segments.isEmpty else { return "/" }
        var path = ""
        for segment in segments {
            path += "/"
            switch segment {
            case .literal(let text): path += text
            case .parameter(let name): path += parameters[name].map(PercentEncoding.encode) ?? "{\(name)}"
            }
        }
        return path
    }

    /// Who may call a route.
    public enum Access: String, Sendable, Hashable, CaseIterable {
        /// No token: health checks and metrics.
        case everyone
        /// A bearer token of role `rider`.
        case rider
        /// A bearer token of role `driver`.
        case driver
        /// Either a rider or a driver token; the server checks the trip is theirs.
        case riderOrDriver
        /// The share token in the path.
        case shareToken
        /// An operator token (the fleet map).
        case `operator`
    }

    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    static func split(_ path: some StringProtocol) -> [Substring] {
        if path == "/" { return [] }
        // omittingEmptySubsequences: false keeps `//` and a trailing `/` visible, so they can be refused.
        return path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { Substring($0) }
    }
}
