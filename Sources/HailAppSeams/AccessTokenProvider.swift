/// Where an app's access token comes from: the operator's backend issues short-lived JWTs (an hour), and the app
/// asks it for a fresh one with its own session there. The transports ask the provider before every call and
/// every stream they open, so a token that expires mid-trip is replaced on the next call or reconnect.
public protocol AccessTokenProvider: Sendable {
    /// The token to send now: the one the provider holds, renewed ahead of its expiry.
    func currentToken() async throws(CallError) -> String
    /// A token to use instead of `rejected`, which the server refused (HTTP 401, or a stream closed with 4001).
    func refreshedToken(after rejected: String) async throws(CallError) -> String
}

/// A token that never changes (`hail ride --token`, the tests): a refused one is refused again.
public struct FixedAccessToken: AccessTokenProvider {
    /// The token.
    public let token: String

    /// A provider of `token` alone.
    public init(_ token: String) { self.token = token }

    /// The token.
    public func currentToken() async throws(CallError) -> String { token }

    /// The same token: there is no other.
    public func refreshedToken(after rejected: String) async throws(CallError) -> String { token }
}
