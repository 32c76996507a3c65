/// The query of the rider stream `/v1/trips/{id}/live?after=<seq>`: resume after a stored cursor.
public struct LiveQuery: Sendable, Hashable {
    /// The last driver seq the client stored, or nil to start from the latest position.
    public var after: Int64?

    /// Creates a query.
    public init(after: Int64? = nil) { self.after = after }

    /// Reads `after`, which must be a non-negative integer when present.
    public init(query: [String: String]) throws(APIError) {
        guard let text = query["after"], !text.isEmpty else {
            after = nil
            return
        }
        guard let value = Int64(text), value >= 0 else {
            throw APIError.invalidField("after", "after must be a non-negative integer")
        }
        after = value
    }

    /// `after=42`, or the empty string when there is no cursor.
    public var queryString: String {
        guard let after else { return "" }
        return QueryString.build([("after", String(after))])
    }
}
