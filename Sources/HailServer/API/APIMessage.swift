import Foundation
import HailProtocol

/// An HTTP request as the API sees it, independent of the socket library that carried it.
public struct APIRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path with its query string, as sent.
    public var target: String
    /// Header values by lower-cased name.
    public var headers: [String: String]
    /// The raw body.
    public var body: Data
    /// The peer's address, for logs and per-address limits.
    public var remoteAddress: String
    /// The request id (from `X-Request-Id` or generated), echoed in the response and the log.
    public var requestID: String
    /// When the server read the request's head; its deadline (`ServerConfiguration.requestDeadline`) counts from
    /// here, not from when its handler started.
    public var receivedAt: ContinuousClock.Instant

    /// Creates a request; header names are lower-cased here.
    public init(
        method: String, target: String, headers: [String: String] = [:], body: Data = Data(),
        remoteAddress: String = "127.0.0.1", requestID: String = "", receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.target = target
        self.headers = Dictionary(
            headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.receivedAt = receivedAt
    }

    /// A request whose header names are lower case already (HailNet's are): no second dictionary.
    init(
        method: String, target: String, lowercasedHeaders: [String: String], body: Data, remoteAddress: String,
        requestID: String, receivedAt: ContinuousClock.Instant
    ) {
        self.method = method
        self.target = target
        headers = lowercasedHeaders
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.receivedAt = receivedAt
    }

    /// A header's value by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// An HTTP response from the API.
public struct APIResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Headers to send.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with `value` encoded on the wire conventions.
    public static func json<T: Encodable>(_ value: T, status: Int = 200) -> APIResponse {
        let body = (try? HailJSON.encode(value)) ?? Data("{}".utf8)
        return APIResponse(status: status, headers: [HailHeader.contentType: HailMediaType.json], body: body)
    }

    /// A JSON body already encoded.
    public static func jsonBody(_ body: Data, status: Int) -> APIResponse {
        APIResponse(status: status, headers: [HailHeader.contentType: HailMediaType.json], body: body)
    }

    /// The documented error body for `error`, with its status (and `Retry-After` for 429 and 503: the
    /// configured one for 503 is set by `HailAPI`, 2 s here).
    public static func error(_ error: APIError) -> APIResponse {
        var response = json(ErrorBody(error: error), status: error.httpStatus)
        if error.code == .rateLimited { response.headers[HailHeader.retryAfter] = "1" }
        if error.code == .unavailable { response.headers[HailHeader.retryAfter] = "2" }
        return response
    }

    /// 204, no body.
    public static let noContent = APIResponse(status: 204)
}
