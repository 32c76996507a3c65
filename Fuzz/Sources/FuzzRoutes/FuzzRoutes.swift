import Foundation
import FuzzSupport
import HailProtocol

/// libFuzzer's entry point. The first line is a request line (`GET /v1/drivers/nearby?lat=1&lng=2`); it
/// is matched against the route table and its query read by the query types. Every line is also read as
/// a header value (client, idempotency key, bearer), as a percent-escaped string and as a wire date.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoutes(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let text = String(decoding: FuzzInput.bytes(data, size), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    RouteCheck.requestLine(lines[0])
    for line in lines.prefix(16) {
        RouteCheck.escapes(line)
        RouteCheck.headerValues(line)
        RouteCheck.date(line)
    }
    return 0
}

/// What each parser of the request line and headers promises beyond not crashing.
enum RouteCheck {
    static func requestLine(_ line: String) {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let method = HTTPMethod(rawValue: parts.first ?? "")
        let target = parts.count > 1 ? parts[1] : ""
        let lookup = Routes.match(method: method, target: target)
        guard case .found(let match) = lookup else {
            do throws(APIError) {
                _ = try lookup.resolve()
                FuzzInvariant.require(false, "\(line) resolved without a match")
            } catch {
                FuzzInvariant.require([404, 405].contains(error.httpStatus), "\(line) gave \(error)")
            }
            return
        }
        FuzzInvariant.require(match.route.method == method, "\(line) matched \(match.route.template)")
        _ = try? NearbyQuery(query: match.query)
        _ = try? LiveQuery(query: match.query)
        // A query written back from its parsed parameters parses to the same parameters.
        let rebuilt = QueryString.build(match.query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        FuzzInvariant.require(QueryString.parse(rebuilt) == match.query, "query of \(line) did not survive a rebuild")
        // The path built from the matched parameters matches the same route with the same parameters.
        var path = match.route.template
        for (name, value) in match.parameters {
            path = path.replacingOccurrences(of: "{\(name)}", with: PercentEncoding.encode(value))
        }
        if case .found(let again) = Routes.match(method: method, target: path) {
            FuzzInvariant.require(
                again.route == match.route && again.parameters == match.parameters, "\(path) matched differently")
        } else {
            FuzzInvariant.require(false, "\(path), built from a match of \(line), matches nothing")
        }
    }

    static func escapes(_ line: String) {
        let encoded = PercentEncoding.encode(line)
        FuzzInvariant.require(PercentEncoding.decode(encoded) == line, "\(line.debugDescription) lost in escaping")
        _ = PercentEncoding.decode(line, plusIsSpace: true)
        _ = QueryString.parse(line)
    }

    static func headerValues(_ line: String) {
        if let client = ClientInfo(headerValue: line) {
            FuzzInvariant.require(
                ClientInfo(headerValue: client.headerValue) == client,
                "client \(line.debugDescription) reads back differently")
        }
        if IdempotencyKey.isValid(line) {
            FuzzInvariant.require(UUID(uuidString: line) != nil, "\(line) passed as a key but is not a UUID")
        }
        _ = try? IdempotencyKey.require(line)
        _ = BearerToken.parse(line)
    }

    static func date(_ line: String) {
        guard let date = try? WireDate.parse(line), let text = try? WireDate.format(date) else { return }
        guard let again = try? WireDate.parse(text) else {
            FuzzInvariant.require(false, "\(line) formats as \(text), which does not parse")
            return
        }
        // Formatting rounds to the millisecond; near the year 9999 a Date's own resolution (its Double's ulp,
        // about 30 µs there) adds to that, so the bound allows a few ulps beyond half a millisecond.
        let tolerance = 0.0005 + 4 * date.timeIntervalSince1970.ulp
        FuzzInvariant.require(
            abs(again.timeIntervalSince(date)) <= tolerance, "\(line) formats as \(text), a different instant")
    }
}
