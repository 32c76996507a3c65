/// `a=1&b=two` query strings: parsing into a dictionary and building from pairs.
public enum QueryString {
    /// The parameters of a query (without the `?`). The first occurrence of a name wins; a pair whose
    /// escapes are malformed is skipped; a name without `=` has the empty value.
    public static func parse(_ query: some StringProtocol) -> [String: String] {
        var parameters = [String: String]()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusIsSpace: true), !name.isEmpty,
                let value = PercentEncoding.decode(parts.count > 1 ? parts[1] : "", plusIsSpace: true)
            else { continue }
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }

    /// `name=value&...` in the given order, each side percent-encoded.
    public static func build(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }
}
