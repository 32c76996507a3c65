import Foundation
import Synchronization

/// The server's rate limits at run time: one `RateLimiter` per limit behind a lock, asked by the runtime
/// for every HTTP request and WebSocket upgrade before anything else is done with it.
///
/// The decisions are the pure limiters'; this type only resolves who is asking (the client address
/// behind trusted proxies, and the principal of a token whose signature and expiry check out; a token
/// that does not is judged by its address alone and gets its 401 from the API) and counts refusals.
public final class RateLimitGate: Sendable {
    /// The limits enforced.
    public let limits: RateLimits
    private let tokens: TokenAuthority
    private let metrics: ServerMetrics
    private let state: Mutex<Limiters>

    private struct Limiters {
        var requestsPerAddress: RateLimiter<String>?
        var requestsPerToken: RateLimiter<String>?
        var connectionsPerAddress: RateLimiter<String>?
        var connectionsPerToken: RateLimiter<String>?
        /// Open WebSockets by client address (only addresses with at least one).
        var open: [String: Int] = [:]
    }

    /// A gate with fresh buckets.
    public init(limits: RateLimits, tokens: TokenAuthority, metrics: ServerMetrics) {
        self.limits = limits
        self.tokens = tokens
        self.metrics = metrics
        state = Mutex(
            Limiters(
                requestsPerAddress: limits.requestsPerAddress.map { RateLimiter(rate: $0) },
                requestsPerToken: limits.requestsPerToken.map { RateLimiter(rate: $0) },
                connectionsPerAddress: limits.connectionsPerAddress.map { RateLimiter(rate: $0) },
                connectionsPerToken: limits.connectionsPerToken.map { RateLimiter(rate: $0) }))
    }

    /// The client address behind trusted proxies, and whether it is exempt (loopback, unless limited too).
    public func client(peer: String, forwardedFor: String?) -> (address: String, exempt: Bool) {
        let address = ClientAddress.resolve(
            peer: peer, forwardedFor: forwardedFor, trustedProxies: limits.trustedProxies)
        return (address, !limits.limitLoopback && ClientAddress.isLoopback(address))
    }

    /// Admits one HTTP request, or says which limit it broke. `token` is the raw bearer token, if any.
    public func admitRequest(peer: String, forwardedFor: String?, token: String?, now: Date) -> RateLimitRefusal? {
        admit(
            peer: peer, forwardedFor: forwardedFor, token: token, now: now,
            address: (\.requestsPerAddress, "requestsPerAddress"), principal: (\.requestsPerToken, "requestsPerToken"))
    }

    /// Admits one WebSocket upgrade, or says which limit it broke. An admitted connection counts as open
    /// for its address until `connectionEnded` is called with the same peer and forwarded address.
    public func admitConnection(peer: String, forwardedFor: String?, token: String?, now: Date) -> RateLimitRefusal? {
        if let refusal = admit(
            peer: peer, forwardedFor: forwardedFor, token: token, now: now,
            address: (\.connectionsPerAddress, "connectionsPerAddress"),
            principal: (\.connectionsPerToken, "connectionsPerToken"))
        {
            return refusal
        }
        guard let cap = limits.openConnectionsPerAddress else { return nil }
        let (address, exempt) = client(peer: peer, forwardedFor: forwardedFor)
        guard !exempt else { return nil }
        // Checked and counted under one lock, so simultaneous upgrades cannot pass the cap together.
        let full = state.withLock { limiters -> Bool in
            let open = limiters.open[address, default: 0]
            if open >= cap { return true }
            limiters.open[address] = open + 1
            return false
        }
        guard full else { return nil }
        let refusal = RateLimitRefusal(limit: "openConnectionsPerAddress", cap: cap, retryAfterSeconds: 10)
        count(refusal)
        return refusal
    }

    /// Forgets a connection `admitConnection` let in (refused later by the API, or closed).
    public func connectionEnded(peer: String, forwardedFor: String?) {
        changeOpen(peer: peer, forwardedFor: forwardedFor, by: -1)
    }

    /// WebSockets open from `address` as counted for its cap (for tests and metrics).
    public func openConnections(from address: String) -> Int {
        state.withLock { $0.open[address, default: 0] }
    }

    private func changeOpen(peer: String, forwardedFor: String?, by delta: Int) {
        guard limits.openConnectionsPerAddress != nil else { return }
        let (address, exempt) = client(peer: peer, forwardedFor: forwardedFor)
        guard !exempt else { return }
        state.withLock { limiters in
            let count = limiters.open[address, default: 0] + delta
            limiters.open[address] = count > 0 ? count : nil
        }
    }

    /// A fresh per-socket message bucket for a client, or nil when the client is exempt or there is no limit.
    public func messageBucket(peer: String, forwardedFor: String?, now: Date) -> TokenBucket? {
        guard let rate = limits.messagesPerConnection, !client(peer: peer, forwardedFor: forwardedFor).exempt else {
            return nil
        }
        return TokenBucket(rate: rate, now: now)
    }

    /// Counts a refusal made elsewhere (the message limit lives with each socket).
    public func count(_ refusal: RateLimitRefusal) {
        metrics.registry.add("hail_rate_limited_total", labels: ["limit": refusal.limit])
    }

    /// The raw token of a request: `Authorization: Bearer`, else `access_token`, else a share page's path.
    public static func token(authorization: String?, accessToken: String?, path: String) -> String? {
        if let authorization, authorization.hasPrefix("Bearer ") {
            return trimmingBlanks(authorization.dropFirst("Bearer ".count))
        }
        if let accessToken, !accessToken.isEmpty { return accessToken }
        if path.hasPrefix("/share/") { return String(path.dropFirst("/share/".count)) }
        return nil
    }

    /// `text` without the spaces and tabs around it (`CharacterSet.whitespaces`: tab and Unicode's space
    /// separators), without Foundation's string bridging, which cost a twentieth of a request.
    static func trimmingBlanks(_ text: Substring) -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, isBlank(first) { scalars.removeFirst() }
        while let last = scalars.last, isBlank(last) { scalars.removeLast() }
        return String(Substring(scalars))
    }

    private func admit(
        peer: String, forwardedFor: String?, token: String?, now: Date,
        address addressLimit: (WritableKeyPath<Limiters, RateLimiter<String>?>, String),
        principal principalLimit: (WritableKeyPath<Limiters, RateLimiter<String>?>, String)
    ) -> RateLimitRefusal? {
        let (address, exempt) = client(peer: peer, forwardedFor: forwardedFor)
        if exempt { return nil }
        // Verified outside the lock; a bad token is limited by its address only.
        let principal = token.flatMap { try? tokens.verify($0, now: now).principal.description }
        let refusal = state.withLock { limiters -> RateLimitRefusal? in
            if let refusal = Self.take(&limiters, addressLimit, key: address, now: now) { return refusal }
            if let principal, let refusal = Self.take(&limiters, principalLimit, key: principal, now: now) {
                return refusal
            }
            return nil
        }
        if let refusal { count(refusal) }
        return refusal
    }

    private static func take(
        _ limiters: inout Limiters, _ limit: (WritableKeyPath<Limiters, RateLimiter<String>?>, String), key: String,
        now: Date
    ) -> RateLimitRefusal? {
        // Mutated in place through the key path: copying a limiter out would copy its whole table.
        guard let decision = limiters[keyPath: limit.0]?.take(key, now: now),
            case .reject(let seconds) = decision, let rate = limiters[keyPath: limit.0]?.rate
        else { return nil }
        return RateLimitRefusal(limit: limit.1, rate: rate, retryAfterSeconds: seconds)
    }
}
