import Foundation
import HailServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which request `hail bench http` repeats.
public enum HTTPRoute: String, Sendable, CaseIterable {
    /// `GET /healthz`: the HTTP stack and router, no auth, no storage.
    case healthz
    /// `POST /v1/estimates` with a rider token: auth (HMAC), JSON decode, validation, pricing.
    case estimates

    /// The request's bytes, built once.
    func request(on target: BenchTarget) -> [UInt8] {
        let authority = target.endpoint.authority
        switch self {
        case .healthz:
            return HTTPRequestBytes.make(method: "GET", path: "/healthz", authority: authority)
        case .estimates:
            let body = #"{"pickup":{"lat":43.7384,"lng":7.4246},"dropoff":{"lat":43.7311,"lng":7.4197}}"#
            return HTTPRequestBytes.make(
                method: "POST", path: "/v1/estimates", authority: authority,
                headers: [
                    ("Authorization", "Bearer \(target.token(role: .rider, subject: "bench-rider"))"),
                    ("Content-Type", "application/json"),
                ],
                body: Array(body.utf8))
        }
    }

    /// The same request for URLSession, the ordinary kept-alive client.
    func urlRequest(on target: BenchTarget) -> URLRequest {
        var request: URLRequest
        switch self {
        case .healthz:
            request = URLRequest(url: URL(string: "http://\(target.endpoint.authority)/healthz")!)
        case .estimates:
            request = URLRequest(url: URL(string: "http://\(target.endpoint.authority)/v1/estimates")!)
            request.httpMethod = "POST"
            request.setValue(
                "Bearer \(target.token(role: .rider, subject: "bench-rider"))", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(
                #"{"pickup":{"lat":43.7384,"lng":7.4246},"dropoff":{"lat":43.7311,"lng":7.4197}}"#.utf8)
        }
        request.timeoutInterval = 5
        return request
    }

    /// The request line, for the report.
    var summary: String {
        switch self {
        case .healthz: return "GET /healthz"
        case .estimates: return "POST /v1/estimates (rider token)"
        }
    }
}
