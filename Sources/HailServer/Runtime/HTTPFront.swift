import Foundation
import HailNet
import HailProtocol
import HailThreads
import HailTime

/// HailNet's HTTP requests into the API and its answers back: the rate limits first, then `HailAPI.answer`, then
/// the metric, the request log line and the response headers every answer carries. Runs on the request's loop;
/// what the API answers from memory goes back at once (`HTTPAnswer.now`), with no task.
struct HTTPFront: Sendable {
    let api: HailAPI
    let gate: RateLimitGate
    let metrics: ServerMetrics
    let time: Timeline
    /// Where request log lines go; nil for none.
    let log: (@Sendable (String) -> Void)?

    /// The answer to `request`, now or later.
    func respond(_ request: HTTPRequest) -> HTTPAnswer {
        let started = request.receivedAt
        let apiRequest = APIRequest(
            method: request.method, target: Self.target(path: request.path, query: request.query),
            lowercasedHeaders: Self.headerValues(request.headers), body: Data(request.body),
            remoteAddress: request.remoteAddress, requestID: request.requestID, receivedAt: request.receivedAt)
        let forwardedFor = apiRequest.headers["x-forwarded-for"]
        if let refusal = gate.admitRequest(
            peer: request.remoteAddress, forwardedFor: forwardedFor,
            token: BackendServer.token(request.headers, request.query, path: request.path), now: time.now())
        {
            return .now(finish(apiRequest, .rateLimited(refusal), route: "rateLimited", started: started))
        }
        switch api.answer(apiRequest) {
        case .now(let response, let route):
            return .now(finish(apiRequest, response, route: route, started: started))
        case .later(let work):
            return .later {
                let (response, route) = await work()
                return finish(apiRequest, response, route: route, started: started)
            }
        }
    }

    /// Counts and logs the answer, and turns it into HailNet's response with the request id and the server's time.
    private func finish(_ request: APIRequest, _ response: APIResponse, route: String, started: ContinuousClock.Instant)
        -> HTTPResponse
    {
        metrics.httpRequest(route: route, status: response.status)
        let now = time.now()
        if let log {
            let address = gate.client(peer: request.remoteAddress, forwardedFor: request.headers["x-forwarded-for"])
                .address
            log(
                BackendServer.logLine(
                    request, route: route, status: response.status, elapsed: ContinuousClock.now - started, now: now,
                    address: address))
        }
        let stamp = try? WireDate.format(now)
        var headers = HTTPHeaders()
        for (name, value) in response.headers {
            if Self.sameName(name, HailHeader.requestID) || (stamp != nil && Self.sameName(name, HailHeader.serverTime))
            {
                continue
            }
            headers.add(name, value)
        }
        headers.add(HailHeader.requestID, request.requestID)
        if let stamp { headers.add(HailHeader.serverTime, stamp) }
        return HTTPResponse(status: response.status, headers: headers, body: Array(response.body))
    }

    /// The first value of each header by lower-case name (HailNet's names are lower case already).
    static func headerValues(_ headers: HTTPHeaders) -> [String: String] {
        var values: [String: String] = [:]
        values.reserveCapacity(headers.fields.count)
        for field in headers.fields {
            let name =
                field.name.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
                ? field.name.lowercased() : field.name
            if values[name] == nil { values[name] = field.value }
        }
        return values
    }

    /// The request target again from HailNet's decoded path and query. Each path segment is encoded again:
    /// `Routes.match` decodes once more, and a decoded `?`, `#` or `%` left as it is would change the path (a
    /// trip id with `%3F` in it routed as `/v1/trips/` and a query). A path of only unreserved characters and
    /// slashes (nearly every one) is its own encoding.
    static func target(path: String, query: [QueryItem]) -> String {
        let encodedPath: String
        if path.utf8.allSatisfy(Self.isPlainPathByte) {
            encodedPath = path
        } else {
            encodedPath = path.split(separator: "/", omittingEmptySubsequences: false)
                .map { PercentEncoding.encode(String($0)) }.joined(separator: "/")
        }
        guard !query.isEmpty else { return encodedPath }
        return encodedPath + "?"
            + query.map { "\(PercentEncoding.encode($0.name))=\(PercentEncoding.encode($0.value))" }.joined(
                separator: "&")
    }

    /// A byte `PercentEncoding.encode` leaves as it is (RFC 3986's unreserved set), or the path's slash.
    private static func isPlainPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }

    /// Header names compared as HTTP does (ASCII letters in any case), without lower-casing either into a new string.
    static func sameName(_ left: String, _ right: String) -> Bool {
        left.utf8.elementsEqual(right.utf8) { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
