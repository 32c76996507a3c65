/// The query of the rider stream `/v1/trips/{id}/live?after=<seq>&version=<v>`: resume after a stored cursor.
public struct LiveQuery: Sendable, Hashable {
    /// The last driver seq the client stored, or nil to start from the latest position.
    public var after: Int64?
    /// The trip version the client shows, so the server can count the versions a resync brought it past (its
    /// `hail_resync_trip_versions_total`); optional, and nothing else depends on it.
    public var version: Int?

    /// Creates a query.
    public init(after: Int64? = nil, version: Int? = nil) {
        self.after = after
        self.version = version
    }

    /// Reads `after` and `version`, each a non-negative integer when present.
    public init(query: [String: String]) throws(APIError) {
        after = try Self.number(query, "after")
        version = try Self.number(query, "version").map { Int($0) }
    }

    private static func number(_ query: [String: String], _ name: String) throws(APIError) -> Int64? {
        guard let text = query[name], !text.isEmpty else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw APIError.invalidField(name, "\(name) must be a non-negative integer")
        }
        return value
    }

    /// `after=42&version=3`, or the empty string when there is neither.
    public var queryString: String {
        var items: [(String, String)] = []
        if let after { items.append(("after", String(after))) }
        if let version { items.append(("version", String(version))) }
        return items.isEmpty ? "" : QueryString.build(items)
    }
}
