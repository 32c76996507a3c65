import Foundation
import HailAppSeams
import HailProtocol

/// REST: the server's base URL, the bearer token, `X-Hail-Client`, wire JSON, over an `HTTPExchange` (URLSession
/// unless told otherwise).
public struct HTTPTransport: Sendable {
    /// The server, such as `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// Where the bearer token sent on every request comes from.
    public let tokens: any AccessTokenProvider
    /// What this app says it is (`hail-rider/1.0.0 (iPhone15,2)`).
    public let client: ClientInfo?
    /// How long one request may take before it counts as lost.
    public let timeout: TimeInterval
    private let exchange: any HTTPExchange
    private let clock = ServerTimeRecorder()
    private let hold = ServerHoldRecorder()
    private let now: @Sendable () -> Date

    /// Creates a transport sending one fixed token over `exchange`; `now` is the device clock (tests inject theirs).
    public init(
        baseURL: URL, token: String, client: ClientInfo? = nil, timeout: TimeInterval = 10,
        exchange: any HTTPExchange = URLSessionExchange(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            baseURL: baseURL, tokens: FixedAccessToken(token), client: client, timeout: timeout, exchange: exchange,
            now: now)
    }

    /// Creates a transport whose token comes from `tokens`: asked before each request, and once more for a new
    /// one when the server answers 401.
    public init(
        baseURL: URL, tokens: any AccessTokenProvider, client: ClientInfo? = nil, timeout: TimeInterval = 10,
        exchange: any HTTPExchange = URLSessionExchange(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.tokens = tokens
        self.client = client
        self.timeout = timeout
        self.exchange = exchange
        self.now = now
    }

    /// One exchange: the status and body, or a `CallError` for no answer or an error status (with the answer's
    /// `Retry-After`). While an earlier answer's `Retry-After` runs (`ServerHold`), nothing is sent: the call
    /// fails at once with `CallError.held(seconds:)`, retryable, carrying what is left of the wait. A 401 is tried
    /// once more with the provider's refreshed token, under the same idempotency key.
    public func send(
        _ method: String, _ path: String, body: Data? = nil, contentType: String = HailMediaType.json,
        idempotencyKey: UUID? = nil
    ) async throws(CallError) -> (status: Int, body: Data) {
        if let wait = await hold.remaining(now: now()) { throw .held(seconds: wait) }
        let token = try await tokens.currentToken()
        do {
            return try await send(method, path, token: token, body: body, contentType: contentType, key: idempotencyKey)
        } catch  where error.status == 401 {
            let fresh = try await tokens.refreshedToken(after: token)
            guard fresh != token else { throw error }
            return try await send(method, path, token: fresh, body: body, contentType: contentType, key: idempotencyKey)
        }
    }

    private func send(
        _ method: String, _ path: String, token: String, body: Data?, contentType: String, key idempotencyKey: UUID?
    ) async throws(CallError) -> (status: Int, body: Data) {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw .noAnswer("bad path \(path)") }
        var headers: [(name: String, value: String)] = [(HailHeader.authorization, BearerToken.headerValue(token))]
        if let client { headers.append((HailHeader.client, client.headerValue)) }
        if let idempotencyKey { headers.append((HailHeader.idempotencyKey, idempotencyKey.uuidString.lowercased())) }
        if body != nil { headers.append((HailHeader.contentType, contentType)) }
        let sentAt = now()
        let reply = try await exchange.exchange(
            HTTPCall(method: method, url: url, headers: headers, body: body, timeout: timeout))
        let receivedAt = now()
        let status = reply.status
        let data = reply.body
        if let stamp = reply.value(for: HailHeader.serverTime), let serverTime = try? WireDate.parse(stamp) {
            await clock.record(ServerTimeSample(sentAt: sentAt, serverTime: serverTime, receivedAt: receivedAt))
        }
        guard (200..<300).contains(status) else {
            let retryAfter = RetryAfterHeader.seconds(reply.value(for: HailHeader.retryAfter), now: now())
            let failure = CallError.answered(
                status: status, error: try? HailJSON.decode(ErrorBody.self, from: data).error, retryAfter: retryAfter)
            if let wait = failure.retryAfter { await hold.told(retryAfter: wait, now: now()) }
            throw failure
        }
        return (status, data)
    }

    /// The timing of the latest answer that carried the server's clock, for the offset estimate.
    public func latestServerTime() async -> ServerTimeSample? { await clock.latest }

    /// A JSON call decoding the answer, or nil for 204.
    public func json<Response: Decodable>(
        _ method: String, _ path: String, body: (some Encodable)? = Optional<Data>.none, idempotencyKey: UUID? = nil,
        as type: Response.Type
    ) async throws(CallError) -> Response? {
        var bytes: Data?
        if let body {
            do { bytes = try HailJSON.encode(body) } catch { throw .unreadable("cannot encode the request: \(error)") }
        }
        let (status, data) = try await send(method, path, body: bytes, idempotencyKey: idempotencyKey)
        if status == 204 { return nil }
        do {
            return try HailJSON.decode(Response.self, from: data)
        } catch {
            throw .unreadable("\(method) \(path): \(error)")
        }
    }
}

/// One REST round trip's timing: when the request left and the answer came (device clock) and the
/// server's clock in the answer (`X-Hail-Server-Time`).
public struct ServerTimeSample: Sendable, Hashable {
    /// Device time when the request was sent.
    public var sentAt: Date
    /// The server's clock when it answered.
    public var serverTime: Date
    /// Device time when the answer arrived.
    public var receivedAt: Date

    /// Creates a sample.
    public init(sentAt: Date, serverTime: Date, receivedAt: Date) {
        self.sentAt = sentAt
        self.serverTime = serverTime
        self.receivedAt = receivedAt
    }
}

/// Keeps the latest sample; an actor so that concurrent requests of one transport may record.
actor ServerTimeRecorder {
    private(set) var latest: ServerTimeSample?

    func record(_ sample: ServerTimeSample) { latest = sample }
}

/// One transport's `ServerHold`, shared by its concurrent requests.
actor ServerHoldRecorder {
    private var hold = ServerHold()

    func told(retryAfter: TimeInterval, now: Date) { hold.told(retryAfter: retryAfter, now: now) }

    func remaining(now: Date) -> TimeInterval? { hold.remaining(now: now) }
}
