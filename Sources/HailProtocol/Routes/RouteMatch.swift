/// A request matched to a route, with its decoded path parameters and query.
public struct RouteMatch: Sendable, Hashable {
    /// The route the request names.
    public let route: Route
    /// The path parameters by template name, percent-decoded (`id` for `/v1/trips/{id}`).
    public let parameters: [String: String]
    /// The query parameters, percent-decoded.
    public let query: [String: String]

    /// Creates a match.
    public init(route: Route, parameters: [String: String], query: [String: String]) {
        self.route = route
        self.parameters = parameters
        self.query = query
    }

    /// The path parameter `name`, or nil when the template has none by that name.
    public subscript(parameter name: String) -> String? { parameters[name] }
}

/// What the route table says about a request line.
public enum RouteLookup: Sendable, Hashable {
    /// A route takes this method and path.
    case found(RouteMatch)
    /// Routes exist for the path, but with other methods (for the `Allow` header).
    case methodNotAllowed(allowed: [HTTPMethod])
    /// No route has this path.
    case notFound

    /// The match, or the 404 or 405 `APIError` to answer with.
    public func resolve() throws(APIError) -> RouteMatch {
        switch self {
        case .found(let match):
            return match
        case .methodNotAllowed(let allowed):
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            throw APIError(code: .methodNotAllowed, message: "this path accepts \(list)")
        case .notFound:
            throw APIError.notFound("no such route")
        }
    }
}

extension Routes {
    /// Finds the route for a method and request target (`/v1/trips/abc/cancel?x=1`).
    ///
    /// Pure: no I/O and no allocation beyond the result. Segments are percent-decoded after
    /// splitting, so `%2F` stays inside one parameter. Empty segments (`//`, a trailing `/`) and
    /// malformed escapes match nothing. Literal segments beat parameters, so `/v1/trips/active` is
    /// never the trip with id `active`.
    public static func match(method: HTTPMethod, target: String, in routes: [Route] = Routes.all) -> RouteLookup {
        let withoutFragment = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0]
        guard path.hasPrefix("/") else { return .notFound }
        var segments = [String]()
        for raw in Route.split(path) {
            guard !raw.isEmpty, let decoded = PercentEncoding.decode(raw) else { return .notFound }
            segments.append(decoded)
        }
        var best: (route: Route, parameters: [String: String], literals: Int)?
        var otherMethods = [HTTPMethod]()
        for route in routes {
            guard let (parameters, literals) = bind(route, to: segments) else { continue }
            guard route.method == method else {
                if !otherMethods.contains(route.method) { otherMethods.append(route.method) }
                continue
            }
            if best == nil || literals > best!.literals { best = (route, parameters, literals) }
        }
        if let best {
            let query = parts.count > 1 ? QueryString.parse(parts[1]) : [:]
            return .found(RouteMatch(route: best.route, parameters: best.parameters, query: query))
        }
        return otherMethods.isEmpty ? .notFound : .methodNotAllowed(allowed: otherMethods)
    }

    private static func bind(_ route: Route, to segments: [String]) -> ([String: String], Int)? {
        guard route.segments.count == segments.count else { return nil }
        var parameters = [String: String]()
        var literals = 0
        for (pattern, segment) in zip(route.segments, segments) {
            switch pattern {
            case .literal(let text):
                guard text == segment else { return nil }
                literals += 1
            case .parameter(let name):
                parameters[name] = segment
            }
        }
        return (parameters, literals)
    }
}
