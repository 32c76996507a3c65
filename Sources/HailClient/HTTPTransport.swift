import Foundation
import HailProtocol

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// REST over URLSession: the server's base URL, the bearer token, `X-Hail-Client`, wire JSON.
public struct HTTPTransport: Sendable {
    /// The server, such as `http://127.0.0.1:8080`.
    public let baseURL: URL
    /// The bearer token sent on every request.
    public let token: String
    /// What this app says it is (`hail-rider/1.0.0 (iPhone15,2)`).
    public let client: ClientInfo?
    /// How long one request may take before it counts as lost.
    public let timeout: TimeInterval
    private let session: URLSession

    /// Creates a transport.
    public init(
        baseURL: URL, token: String, client: ClientInfo? = nil, timeout: TimeInterval = 10,
        session: URLSession = .shared
    ) {
        self.baseURL = baseURL
        self.token = token
        self.client = client
        self.timeout = timeout
        self.session = session
    }

    /// One exchange: the status and body, or a `ClientError` for no answer or an error status.
    public func send(
        _ method: String, _ path: String, body: Data? = nil, contentType: String = HailMediaType.json,
        idempotencyKey: UUID? = nil
    ) async throws(ClientError) -> (status: Int, body: Data) {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw .transport("bad path \(path)") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue(BearerToken.headerValue(token), forHTTPHeaderField: HailHeader.authorization)
        if let client { request.setValue(client.headerValue, forHTTPHeaderField: HailHeader.client) }
        if let idempotencyKey {
            request.setValue(idempotencyKey.uuidString.lowercased(), forHTTPHeaderField: HailHeader.idempotencyKey)
        }
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: HailHeader.contentType)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .transport("\(method) \(path): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw .server(status: status, error: try? HailJSON.decode(ErrorBody.self, from: data).error)
        }
        return (status, data)
    }

    /// A JSON call decoding the answer, or nil for 204.
    public func json<Response: Decodable>(
        _ method: String, _ path: String, body: (some Encodable)? = Optional<Data>.none, idempotencyKey: UUID? = nil,
        as type: Response.Type
    ) async throws(ClientError) -> Response? {
        var bytes: Data?
        if let body {
            do { bytes = try HailJSON.encode(body) } catch { throw .decoding("cannot encode the request: \(error)") }
        }
        let (status, data) = try await send(method, path, body: bytes, idempotencyKey: idempotencyKey)
        if status == 204 { return nil }
        do {
            return try HailJSON.decode(Response.self, from: data)
        } catch {
            throw .decoding("\(method) \(path): \(error)")
        }
    }
}
