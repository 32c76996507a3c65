/// Reads the token out of `Authorization: Bearer <token>`.
public enum BearerToken {
    /// The token, or nil when the header is absent, uses another scheme, or carries no token.
    /// The scheme name is case-insensitive, as RFC 7235 says.
    public static func parse(_ headerValue: String?) -> String? {
        guard let value = headerValue?.trimmingSpaces else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1]).trimmingSpaces
        return token.isEmpty || token.contains(" ") ? nil : token
    }

    /// `Bearer <token>`, the header value a client sends.
    public static func headerValue(_ token: String) -> String { "Bearer \(token)" }
}
