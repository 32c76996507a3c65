import Foundation
import HailCore
import HailProtocol

/// `GET /v1/config`, `POST /v1/telemetry`, and the count of refused trip intents: what makes the system
/// operable per cohort (seed 004), on top of the trip routes.
extension HailAPI {
    /// The caller's flags, with an `ETag` of the body: `private` (an answer is per caller, never for a shared
    /// cache), `no-cache` (revalidate every time, so a reloaded flag reaches the next resync), and a 304 without
    /// a body when `If-None-Match` names the same one.
    func config(_ request: APIRequest, _ principal: Principal) async -> APIResponse {
        let client = ClientInfo(headerValue: request.header(HailHeader.client))
        let key = await services.cohortKey(for: principal, client: client)
        let config = services.flags.current.config(for: key)
        services.metrics.configAnswered(config)
        let body = (try? HailJSON.encode(config)) ?? Data("{}".utf8)
        let tag = Self.entityTag(body)
        let headers = [
            HailHeader.contentType: HailMediaType.json, "ETag": tag, "Cache-Control": "private, no-cache",
            "Vary": "Authorization, X-Hail-Client",
        ]
        if let wanted = request.header("If-None-Match"), Self.entityTag(tag, matches: wanted) {
            var notModified = APIResponse(status: 304, headers: headers)
            notModified.headers[HailHeader.contentType] = nil
            return notModified
        }
        return APIResponse(status: 200, headers: headers, body: body)
    }

    /// One telemetry batch: the principal's own rate first (429), then the body (400 naming the field), then its
    /// numbers on `/metrics`, segmented by the version and device it names and the caller's region.
    func telemetry(_ request: APIRequest, _ principal: Principal) async throws(APIError) -> APIResponse {
        if let refusal = services.telemetryLimit.take(principal, now: services.time.now()) {
            return .rateLimited(refusal)
        }
        let batch = try WireDecoder.decodeRequest(TelemetryBatch.self, from: request.body)
        let app = ClientInfo(headerValue: request.header(HailHeader.client))?.app ?? "hail-\(principal.role.rawValue)"
        let client = ClientInfo(app: app, version: batch.appVersion, deviceModel: batch.deviceModel)
        let key = await services.cohortKey(for: principal, client: client)
        let segment = services.metrics.clientBounds.segment(
            client, region: services.flags.current.region(containing: key.position))
        services.metrics.telemetry(
            batch, summary: TelemetrySummary(samples: batch.samplesInOrder), role: principal.role, segment: segment)
        return .noContent
    }

    /// Counts a refused trip intent (403, 409 or 422 on a route where an app proposes a trip change), by its kind,
    /// the error code, and the app's version, device and the trip's region.
    func countRefusal(_ request: APIRequest, _ match: RouteMatch, _ response: APIResponse) async {
        guard Self.countsAsRefusal(match, request, response), let kind = Self.proposalKind(match.route, request.body)
        else { return }
        let error = (try? HailJSON.decode(ErrorBody.self, from: response.body))?.error
        // A safety rule's refusal is counted by its rule (too_far_from_pickup, wrong_pickup_pin), not invalid_state.
        let reason = error?.reason?.rawValue ?? error?.code.rawValue ?? "unknown"
        var pickup: Coordinate?
        if match.route == Routes.requestTrip {
            pickup = (try? HailJSON.decode(TripRequest.self, from: request.body))?.pickup
        } else if let id = match.parameters["id"] {
            pickup = (try? await services.trips.record(id: id))?.trip.pickup
        }
        let segment = services.metrics.clientBounds.segment(
            ClientInfo(headerValue: request.header(HailHeader.client)),
            region: services.flags.current.region(containing: pickup))
        services.metrics.proposalRefused(kind: kind, reason: reason, segment: segment)
    }

    /// Whether `response` refuses a proposal of an app (a trip change), which `countRefusal` counts.
    static func countsAsRefusal(_ match: RouteMatch, _ request: APIRequest, _ response: APIResponse) -> Bool {
        [403, 409, 422].contains(response.status) && proposalKind(match.route, request.body) != nil
    }

    /// What an app proposed on `route`: request, cancel, accept, decline, or the event (arrived, started, ended);
    /// nil for routes that propose no trip change.
    static func proposalKind(_ route: Route, _ body: Data) -> String? {
        switch route {
        case Routes.requestTrip: return "request"
        case Routes.cancelTrip: return "cancel"
        case Routes.acceptTrip: return "accept"
        case Routes.declineTrip: return "decline"
        case Routes.tripEvents:
            return (try? HailJSON.decode(TripEventRequest.self, from: body))?.event.rawValue ?? "event"
        default: return nil
        }
    }

    /// A strong entity tag for `body`: FNV-1a 64 of its bytes, quoted. Stable across nodes, since the body is
    /// encoded with sorted keys.
    static func entityTag(_ body: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// True when an `If-None-Match` value names `tag`: `*`, or one of its comma-separated tags (a weak `W/` one
    /// included, as RFC 9110's weak comparison for GET allows).
    static func entityTag(_ tag: String, matches header: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var text = candidate.trimmingCharacters(in: .whitespaces)
            if text == "*" { return true }
            if text.hasPrefix("W/") { text.removeFirst(2) }
            return text == tag
        }
    }
}
