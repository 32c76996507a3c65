import Foundation
import Synchronization

/// One route's own rate per principal (`telemetryPerToken`), shared by every request of a node: the bucket map
/// under a lock, refusals counted in `hail_rate_limited_total{limit}`.
public final class PrincipalRateLimit: Sendable {
    /// The limit's name, for the refusal and the metric.
    public let name: String
    private let limiter: Mutex<RateLimiter<String>?>
    private let rate: Rate?
    private let metrics: ServerMetrics

    /// A limit of `rate` per principal (nil: none) named `name`.
    public init(name: String, rate: Rate?, metrics: ServerMetrics) {
        self.name = name
        self.rate = rate
        self.metrics = metrics
        limiter = Mutex(rate.map { RateLimiter<String>(rate: $0) })
    }

    /// Takes a token for `principal` at `now`; the refusal when it has none left.
    public func take(_ principal: Principal, now: Date) -> RateLimitRefusal? {
        guard let rate else { return nil }
        let decision = limiter.withLock { $0?.take(principal.description, now: now) }
        guard case .reject(let seconds)? = decision else { return nil }
        metrics.registry.add("hail_rate_limited_total", labels: ["limit": name])
        return RateLimitRefusal(limit: name, rate: rate, retryAfterSeconds: seconds)
    }
}
