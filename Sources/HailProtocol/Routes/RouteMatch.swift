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
    public static func match(method: HTTPMethod, target: String) -> RouteLookup {
        match(method: method, target: target, byLength: allByLength)
    }

    /// `match(method:target:)` over `routes` instead of every route.
    public static func match(method: HTTPMethod, target: String, in routes: [Route]) -> RouteLookup {
        match(method: method, target: target, byLength: byLength(routes))
    }

    /// `all` by the number of segments of each template, in their order: a request is bound only to templates of
    /// its own length (a route of another length never matches, so this changes no answer).
    private static let allByLength = byLength(all)

    private static func byLength(_ routes: [Route]) -> [Int: [Route]] {
        Dictionary(grouping: routes, by: \.segments.count)
    }

    private static func match(method: HTTPMethod, target: String, byLength: [Int: [Route]]) -> RouteLookup {
        let withoutFragment = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0]
        guard path.hasPrefix("/") else { return .notFound }
        var segments = [String]()
        for raw in Route.split(path) {
            guard !raw.isEmpty, let decoded = PercentEncoding.decode(raw) else { return .notFound }
            segments.append(decoded)
        }
        guard let routes = byLength[segments.count] else { return .notFound }
        var best: (index: Int, parameters: [String: String], literals: Int)?
        var otherMethods = [HTTPMethod]()
        for index in routes.indices {
            guard let (parameters, literals) = bind(routes[index], to: segments) else { continue }
            guard routes[index].method == method else {
                if !otherMethods.contains(routes[index].method) { otherMethods.append(routes[index].method) }
                continue
            }
            if best == nil || literals > best!.literals { best = (index, parameters, literals) }
        }
        if let best {
            let query = parts.count > 1 ? QueryString.parse(parts[1]) : [:]
            return .found(RouteMatch(route: routes[best.index], parameters: best.parameters, query: query))
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
