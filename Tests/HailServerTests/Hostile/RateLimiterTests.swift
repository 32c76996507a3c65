import Foundation
import HailProtocol
import Testing

@testable import HailServer

/// The pure rate-limit logic on hand-set times: token buckets, the keyed limiter, rate syntax, client
/// addresses behind proxies, and the gate that combines them.
@Suite("Rate limiter")
struct RateLimiterTests {
    static let t0 = Date(timeIntervalSince1970: 1_796_220_000)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func aBucketAllowsItsBurstThenSaysWhenTheNextTokenComes() {
        var bucket = TokenBucket(rate: Rate(perSecond: 2, burst: 3), now: Self.t0)
        #expect((0..<3).map { _ in bucket.take(now: Self.t0) } == [.allow, .allow, .allow])
        #expect(bucket.take(now: Self.t0) == .reject(retryAfterSeconds: 1))
        #expect(bucket.take(now: Self.at(0.5)) == .allow)
        #expect(bucket.take(now: Self.at(0.5)) == .reject(retryAfterSeconds: 1))
    }

    @Test func retryAfterIsTheWholeSecondsUntilOneTokenHasRefilled() {
        var bucket = TokenBucket(rate: Rate(perSecond: 0.25, burst: 1), now: Self.t0)
        #expect(bucket.take(now: Self.t0) == .allow)
        #expect(bucket.take(now: Self.t0) == .reject(retryAfterSeconds: 4))
        #expect(bucket.take(now: Self.at(2)) == .reject(retryAfterSeconds: 2))
        #expect(bucket.take(now: Self.at(3.5)) == .reject(retryAfterSeconds: 1))
        #expect(bucket.take(now: Self.at(4)) == .allow)
    }

    @Test func knockingWhileLimitedCostsNothing() {
        var bucket = TokenBucket(rate: Rate(perSecond: 1, burst: 1), now: Self.t0)
        #expect(bucket.take(now: Self.t0) == .allow)
        for step in 1..<10 { #expect(bucket.take(now: Self.at(Double(step) * 0.1)) == .reject(retryAfterSeconds: 1)) }
        #expect(bucket.take(now: Self.at(1)) == .allow)
    }

    @Test func aClockSteppingBackRefillsNothing() {
        var bucket = TokenBucket(rate: Rate(perSecond: 1, burst: 1), now: Self.at(10))
        #expect(bucket.take(now: Self.at(10)) == .allow)
        #expect(bucket.take(now: Self.at(5)) == .reject(retryAfterSeconds: 1))
        #expect(bucket.take(now: Self.at(11)) == .allow)
    }

    @Test func aBucketNeverHoldsMoreThanItsBurst() {
        var bucket = TokenBucket(rate: Rate(perSecond: 10, burst: 2), now: Self.t0)
        let taken = (0..<5).map { _ in bucket.take(now: Self.at(3600)) }
        #expect(
            taken == [
                .allow, .allow, .reject(retryAfterSeconds: 1), .reject(retryAfterSeconds: 1),
                .reject(retryAfterSeconds: 1),
            ])
        #expect(bucket.isFull(now: Self.at(3600.2)))
        #expect(!bucket.isFull(now: Self.at(3600.1)))
    }

    @Test func keysHaveTheirOwnBucketsAndFullOnesAreForgottenWhenTheTableIsFull() {
        var limiter = RateLimiter<String>(rate: Rate(perSecond: 1, burst: 1), trackedKeyLimit: 3)
        #expect(limiter.take("a", now: Self.t0) == .allow)
        #expect(limiter.take("a", now: Self.t0) == .reject(retryAfterSeconds: 1))
        #expect(limiter.take("b", now: Self.t0) == .allow)
        #expect(limiter.take("c", now: Self.at(0.5)) == .allow)
        #expect(limiter.trackedKeys == 3)
        // At 1.2 s "a" and "b" have refilled, "c" has not: a new key sweeps out the two full ones.
        #expect(limiter.take("d", now: Self.at(1.2)) == .allow)
        #expect(limiter.trackedKeys == 2)
        #expect(limiter.take("c", now: Self.at(1.2)) == .reject(retryAfterSeconds: 1))
    }

    @Test(arguments: [
        ("100", Rate(perSecond: 100, burst: 100)), ("100:500", Rate(perSecond: 100, burst: 500)),
        ("0.5:10", Rate(perSecond: 0.5, burst: 10)), ("0.5", Rate(perSecond: 0.5, burst: 1)),
    ])
    func ratesParse(_ text: String, _ rate: Rate) {
        #expect(Rate(parsing: text) == rate)
    }

    @Test(arguments: ["", "0", "-1", "abc", "1:0.5", "1:2:3", "nan", "inf", "1:", ":5", "1:inf"])
    func badRatesAreRefused(_ text: String) {
        #expect(Rate(parsing: text) == nil)
    }

    @Test func rateDescriptionsReadAsTheFlagsAreWritten() {
        #expect(Rate(perSecond: 100, burst: 500).description == "100/s, burst 500")
        #expect(Rate(perSecond: 0.5, burst: 10).description == "0.5/s, burst 10")
    }

    @Test func forwardedAddressesAreBelievedOnlyFromTrustedProxies() {
        let proxies: Set<String> = ["127.0.0.1", "10.0.0.1"]
        #expect(
            ClientAddress.resolve(peer: "203.0.113.9", forwardedFor: "1.2.3.4", trustedProxies: proxies)
                == "203.0.113.9")
        #expect(ClientAddress.resolve(peer: "10.0.0.1", forwardedFor: "1.2.3.4", trustedProxies: proxies) == "1.2.3.4")
        // The client may write anything before the entry our proxy appended; only that last one counts.
        #expect(
            ClientAddress.resolve(
                peer: "127.0.0.1", forwardedFor: "9.9.9.9, 1.2.3.4, 10.0.0.1", trustedProxies: proxies)
                == "1.2.3.4")
        #expect(
            ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: "10.0.0.1", trustedProxies: proxies) == "127.0.0.1")
        #expect(ClientAddress.resolve(peer: "127.0.0.1", forwardedFor: nil, trustedProxies: proxies) == "127.0.0.1")
        #expect(ClientAddress.isLoopback("127.0.0.5") && ClientAddress.isLoopback("::1"))
        #expect(!ClientAddress.isLoopback("128.0.0.1") && !ClientAddress.isLoopback("10.127.0.1"))
    }

    static func gate(_ configure: (inout RateLimits) -> Void) -> (RateLimitGate, TokenAuthority, ServerMetrics) {
        var limits = RateLimits.off
        configure(&limits)
        let tokens = TokenAuthority(authenticator: TestAuthenticator())
        let metrics = ServerMetrics()
        return (RateLimitGate(limits: limits, tokens: tokens, metrics: metrics), tokens, metrics)
    }

    static func token(_ tokens: TokenAuthority, _ role: Role, _ subject: String, ttl: Int64 = 3600) -> String {
        let now = Int64(t0.timeIntervalSince1970)
        return tokens.mint(AccessToken(role: role, sub: subject, exp: now + ttl, iat: now))
    }

    @Test func theGateLimitsEachAddressAndSparesLoopbackUnlessAsked() {
        let (gate, _, metrics) = Self.gate { $0.requestsPerAddress = Rate(perSecond: 1, burst: 2) }
        let admitted = (0..<3).map { _ in
            gate.admitRequest(peer: "198.51.100.7", forwardedFor: nil, token: nil, now: Self.t0)
        }
        #expect(admitted[0] == nil && admitted[1] == nil)
        #expect(
            admitted[2]
                == RateLimitRefusal(
                    limit: "requestsPerAddress", rate: Rate(perSecond: 1, burst: 2), retryAfterSeconds: 1))
        #expect(admitted[2]?.message == "too many requests from this address (limit 1/s, burst 2); retry after 1 s")
        #expect(gate.admitRequest(peer: "198.51.100.8", forwardedFor: nil, token: nil, now: Self.t0) == nil)
        #expect(
            (0..<10).allSatisfy { _ in
                gate.admitRequest(peer: "127.0.0.1", forwardedFor: nil, token: nil, now: Self.t0) == nil
            })
        // Behind the loopback proxy each forwarded address has its own bucket.
        #expect(gate.admitRequest(peer: "127.0.0.1", forwardedFor: "198.51.100.7", token: nil, now: Self.t0) != nil)
        #expect(metrics.registry.render().contains(#"hail_rate_limited_total{limit="requestsPerAddress"} 2"#))

        let (strict, _, _) = Self.gate {
            $0.requestsPerAddress = Rate(perSecond: 1, burst: 1)
            $0.limitLoopback = true
        }
        #expect(strict.admitRequest(peer: "127.0.0.1", forwardedFor: nil, token: nil, now: Self.t0) == nil)
        #expect(
            strict.admitRequest(peer: "127.0.0.1", forwardedFor: nil, token: nil, now: Self.t0)?.retryAfterSeconds == 1)
    }

    @Test func theGateLimitsEachPrincipalAcrossTokensAndIgnoresBadTokens() {
        let (gate, tokens, _) = Self.gate { $0.requestsPerToken = Rate(perSecond: 0.5, burst: 2) }
        let first = Self.token(tokens, .rider, "r-1")
        let second = Self.token(tokens, .rider, "r-1", ttl: 7200)
        let other = Self.token(tokens, .rider, "r-2")
        let address = "198.51.100.7"
        #expect(gate.admitRequest(peer: address, forwardedFor: nil, token: first, now: Self.t0) == nil)
        #expect(gate.admitRequest(peer: address, forwardedFor: nil, token: second, now: Self.t0) == nil)
        #expect(
            gate.admitRequest(peer: address, forwardedFor: nil, token: first, now: Self.t0)
                == RateLimitRefusal(
                    limit: "requestsPerToken", rate: Rate(perSecond: 0.5, burst: 2), retryAfterSeconds: 2))
        #expect(gate.admitRequest(peer: address, forwardedFor: nil, token: other, now: Self.t0) == nil)
        // A token that does not verify is judged by its address only (and gets its 401 from the API).
        #expect(
            (0..<5).allSatisfy { _ in
                gate.admitRequest(peer: address, forwardedFor: nil, token: "hail1.x.y", now: Self.t0) == nil
            })
        // Connections are counted apart from requests.
        #expect(gate.admitConnection(peer: address, forwardedFor: nil, token: first, now: Self.t0) == nil)
        #expect(gate.admitRequest(peer: address, forwardedFor: nil, token: first, now: Self.at(2)) == nil)
    }

    @Test func openConnectionsAreCappedPerAddressUntilOneEnds() {
        let (gate, _, metrics) = Self.gate { $0.openConnectionsPerAddress = 2 }
        let address = "198.51.100.7"
        #expect(gate.admitConnection(peer: address, forwardedFor: nil, token: nil, now: Self.t0) == nil)
        #expect(gate.admitConnection(peer: address, forwardedFor: nil, token: nil, now: Self.t0) == nil)
        let refusal = gate.admitConnection(peer: address, forwardedFor: nil, token: nil, now: Self.t0)
        #expect(refusal == RateLimitRefusal(limit: "openConnectionsPerAddress", cap: 2, retryAfterSeconds: 10))
        #expect(refusal?.message == "too many open connections from this address (limit 2); close one or retry later")
        #expect(gate.openConnections(from: address) == 2)
        #expect(gate.admitConnection(peer: "198.51.100.8", forwardedFor: nil, token: nil, now: Self.t0) == nil)
        gate.connectionEnded(peer: address, forwardedFor: nil)
        #expect(gate.openConnections(from: address) == 1)
        #expect(gate.admitConnection(peer: address, forwardedFor: nil, token: nil, now: Self.t0) == nil)
        // Loopback is neither capped nor counted.
        for _ in 0..<5 {
            #expect(gate.admitConnection(peer: "127.0.0.1", forwardedFor: nil, token: nil, now: Self.t0) == nil)
        }
        #expect(gate.openConnections(from: "127.0.0.1") == 0)
        #expect(metrics.registry.render().contains(#"hail_rate_limited_total{limit="openConnectionsPerAddress"} 1"#))
    }

    @Test func tokensAreFoundInTheHeaderTheQueryOrASharePagePath() {
        #expect(RateLimitGate.token(authorization: "Bearer abc", accessToken: "q", path: "/v1/trips") == "abc")
        #expect(RateLimitGate.token(authorization: nil, accessToken: "q", path: "/v1/trips/t/live") == "q")
        #expect(RateLimitGate.token(authorization: nil, accessToken: nil, path: "/share/hail1.a.b") == "hail1.a.b")
        #expect(RateLimitGate.token(authorization: "Basic abc", accessToken: nil, path: "/healthz") == nil)
    }

    @Test func messageBucketsExistOnlyForLimitedClients() {
        let (gate, _, _) = Self.gate { $0.messagesPerConnection = Rate(perSecond: 20, burst: 100) }
        #expect(gate.messageBucket(peer: "198.51.100.7", forwardedFor: nil, now: Self.t0)?.tokens == 100)
        #expect(gate.messageBucket(peer: "127.0.0.1", forwardedFor: nil, now: Self.t0) == nil)
        let (off, _, _) = Self.gate { _ in }
        #expect(off.messageBucket(peer: "198.51.100.7", forwardedFor: nil, now: Self.t0) == nil)
    }

    @Test func theDefaultsAreACitysAndLoopbackIsFree() {
        let limits = RateLimits()
        #expect(limits.requestsPerAddress == Rate(perSecond: 100, burst: 500))
        #expect(limits.requestsPerToken == Rate(perSecond: 10, burst: 100))
        #expect(limits.connectionsPerAddress == Rate(perSecond: 10, burst: 100))
        #expect(limits.connectionsPerToken == Rate(perSecond: 1, burst: 10))
        #expect(limits.messagesPerConnection == Rate(perSecond: 20, burst: 100))
        #expect(limits.openConnectionsPerAddress == 1000)
        #expect(!limits.limitLoopback)
        #expect(limits.trustedProxies == ["127.0.0.1", "::1"])
    }

    @Test func aRateLimitedAnswerIsTheErrorBodyWithRetryAfter() throws {
        let refusal = RateLimitRefusal(
            limit: "requestsPerToken", rate: Rate(perSecond: 10, burst: 100), retryAfterSeconds: 3)
        let response = APIResponse.rateLimited(refusal)
        #expect(response.status == 429)
        #expect(response.headers[HailHeader.retryAfter] == "3")
        let error = try HailJSON.decode(ErrorBody.self, from: response.body).error
        #expect(
            error
                == APIError(
                    code: .rateLimited,
                    message: "too many requests with this token (limit 10/s, burst 100); retry after 3 s"))
    }
}
