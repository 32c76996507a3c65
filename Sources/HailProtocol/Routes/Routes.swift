import HailCore

/// Every route of API v1, the pages beside it, and builders for concrete paths.
public enum Routes {
    /// `POST /v1/estimates`: {pickup, dropoff} -> [Estimate].
    public static let estimates = Route(name: "estimates", method: .post, template: "/v1/estimates", access: .rider)
    /// `GET /v1/drivers/nearby?lat=..&lng=..` -> [Coordinate], fuzzed.
    public static let nearbyDrivers = Route(
        name: "nearbyDrivers", method: .get, template: "/v1/drivers/nearby", access: .rider)
    /// `POST /v1/trips` with `Idempotency-Key`: TripRequest -> Trip.
    public static let requestTrip = Route(
        name: "requestTrip", method: .post, template: "/v1/trips", access: .rider, requiresIdempotencyKey: true)
    /// `GET /v1/trips/active` -> Trip, or 204 when the rider has none.
    public static let activeTrip = Route(
        name: "activeTrip", method: .get, template: "/v1/trips/active", access: .rider)
    /// `GET /v1/trips/{id}` -> Trip.
    public static let trip = Route(name: "trip", method: .get, template: "/v1/trips/{id}", access: .riderOrDriver)
    /// `POST /v1/trips/{id}/cancel` with `Idempotency-Key`: CancelRequest (may be empty) -> Trip.
    public static let cancelTrip = Route(
        name: "cancelTrip", method: .post, template: "/v1/trips/{id}/cancel", access: .riderOrDriver,
        requiresIdempotencyKey: true)
    /// `POST /v1/trips/{id}/check-in` with `Idempotency-Key`: CheckInRequest -> Trip; the rider's answer to the
    /// trip's safety alert.
    public static let checkIn = Route(
        name: "checkIn", method: .post, template: "/v1/trips/{id}/check-in", access: .rider,
        requiresIdempotencyKey: true)
    /// `POST /v1/trips/{id}/share` -> ShareLinkResponse.
    public static let shareTrip = Route(
        name: "shareTrip", method: .post, template: "/v1/trips/{id}/share", access: .rider)
    /// WebSocket `/v1/trips/{id}/live?after=<seq>`: a trip's stream of RiderServerFrame, for its rider, its
    /// assigned driver, and share tokens of that trip (the share page).
    public static let tripLive = Route(
        name: "tripLive", method: .get, template: "/v1/trips/{id}/live", access: .riderOrDriver, isWebSocket: true)
    /// `POST /v1/drivers/me/status`: DriverStatusRequest -> 200 with the status as recorded.
    public static let driverStatus = Route(
        name: "driverStatus", method: .post, template: "/v1/drivers/me/status", access: .driver)
    /// WebSocket `/v1/drivers/me/live`: DriverClientFrame up, DriverServerFrame down.
    public static let driverLive = Route(
        name: "driverLive", method: .get, template: "/v1/drivers/me/live", access: .driver, isWebSocket: true)
    /// `POST /v1/drivers/me/locations`: LocationBatch (JSON or binary) -> LocationAck.
    public static let driverLocations = Route(
        name: "driverLocations", method: .post, template: "/v1/drivers/me/locations", access: .driver)
    /// `GET /v1/drivers/me/trip` -> the driver's active Trip, or 204.
    public static let driverTrip = Route(
        name: "driverTrip", method: .get, template: "/v1/drivers/me/trip", access: .driver)
    /// `POST /v1/trips/{id}/accept` with `Idempotency-Key`, no body -> Trip.
    public static let acceptTrip = Route(
        name: "acceptTrip", method: .post, template: "/v1/trips/{id}/accept", access: .driver,
        requiresIdempotencyKey: true)
    /// `POST /v1/trips/{id}/decline`, no body -> 204: the driver turns down their offer; the next
    /// driver is offered at once instead of after the 15 s expiry.
    public static let declineTrip = Route(
        name: "declineTrip", method: .post, template: "/v1/trips/{id}/decline", access: .driver)
    /// `POST /v1/trips/{id}/events`: TripEventRequest -> Trip.
    public static let tripEvents = Route(
        name: "tripEvents", method: .post, template: "/v1/trips/{id}/events", access: .driver)
    /// `PUT /v1/trips/{id}/route`: TripRouteReport -> 204; the route the assigned driver's navigation follows on the
    /// trip under way (at the start, on each re-route), which the server judges the car against.
    public static let tripRoute = Route(
        name: "tripRoute", method: .put, template: "/v1/trips/{id}/route", access: .driver)
    /// `PUT /v1/devices/me`: DeviceRegistration -> 204; the caller's APNs device token, replacing any older one.
    public static let registerDevice = Route(
        name: "registerDevice", method: .put, template: "/v1/devices/me", access: .riderOrDriver)
    /// `DELETE /v1/devices/me` -> 204: forget the caller's device token (sign-out).
    public static let unregisterDevice = Route(
        name: "unregisterDevice", method: .delete, template: "/v1/devices/me", access: .riderOrDriver)
    /// `PUT /v1/trips/{id}/live-activity`: LiveActivityRegistration -> 204, by the trip's rider while it is active.
    public static let registerLiveActivity = Route(
        name: "registerLiveActivity", method: .put, template: "/v1/trips/{id}/live-activity", access: .rider)
    /// `GET /v1/config` -> ClientConfig: the flags of the caller's cohort (rider or driver token), with an `ETag`;
    /// 304 to a matching `If-None-Match`.
    public static let config = Route(name: "config", method: .get, template: "/v1/config", access: .riderOrDriver)
    /// `POST /v1/telemetry`: TelemetryBatch -> 204; an app session's battery, heat and crash samples (rider or driver
    /// token), rate limited per token.
    public static let telemetry = Route(
        name: "telemetry", method: .post, template: "/v1/telemetry", access: .riderOrDriver)
    /// `GET /v1/fleet?lat=..&lng=..` -> FleetSnapshot: every online driver's last position and state and
    /// every active trip, for the operator's live map; idle drivers are searched around the optional point.
    public static let fleet = Route(name: "fleet", method: .get, template: "/v1/fleet", access: .operator)
    /// `GET /v1/fleet/roads` -> RoadMap: the server's road network as segments for the live map (none
    /// when it runs without roads).
    public static let fleetRoads = Route(
        name: "fleetRoads", method: .get, template: "/v1/fleet/roads", access: .operator)
    /// WebSocket `/v1/fleet/live`: the operator's stream of OperatorServerFrame (a snapshot of the fleet, then
    /// its changes), for the live map; operator token.
    public static let fleetLive = Route(
        name: "fleetLive", method: .get, template: "/v1/fleet/live", access: .operator, isWebSocket: true)
    /// `GET /assets/leaflet/{file}` -> the web-map library the fleet page draws with (`leaflet.js`,
    /// `leaflet.css`), from the server's system copy; 404 naming what to install when it is missing.
    public static let leafletAsset = Route(
        name: "leafletAsset", method: .get, template: "/assets/leaflet/{file}", access: .everyone)
    /// `GET /v1/demo/trips/{id}/rider` -> DemoRiderView, or 204 when no simulated rider watches the trip;
    /// `hail demo` only (404 on any other server); operator token.
    public static let demoRider = Route(
        name: "demoRider", method: .get, template: "/v1/demo/trips/{id}/rider", access: .operator)
    /// `POST /v1/demo/faults`: DemoFault -> DemoFaultAnswer; `hail demo` only (404 elsewhere); operator token.
    public static let demoFault = Route(
        name: "demoFault", method: .post, template: "/v1/demo/faults", access: .operator)
    /// `GET /healthz` -> 200 `{"status": "ok"}`.
    public static let health = Route(name: "health", method: .get, template: "/healthz", access: .everyone)
    /// `GET /readyz` -> 200 `{"status": "ready", ...}` when every backend answers in time, else 503 with
    /// `Retry-After` naming the backends that did not (or `draining`).
    public static let readiness = Route(name: "readiness", method: .get, template: "/readyz", access: .everyone)
    /// `GET /metrics` -> Prometheus text format; an operator's token or the server's metrics token.
    public static let metrics = Route(name: "metrics", method: .get, template: "/metrics", access: .operator)
    /// `GET /share/{token}` -> the share page (HTML).
    public static let sharePage = Route(
        name: "sharePage", method: .get, template: "/share/{token}", access: .shareToken)
    /// `GET /` -> the live fleet map (HTML), operator token.
    public static let fleetMap = Route(name: "fleetMap", method: .get, template: "/", access: .operator)

    /// Every route, rider routes first, in the order of the brief.
    public static let all: [Route] = [
        estimates, nearbyDrivers, requestTrip, activeTrip, trip, cancelTrip, checkIn, shareTrip, tripLive,
        driverStatus, driverLive, driverLocations, driverTrip, acceptTrip, declineTrip, tripEvents, tripRoute,
        registerDevice, unregisterDevice, registerLiveActivity, config, telemetry, fleet, fleetRoads, fleetLive,
        leafletAsset, demoRider,
        demoFault,
        health, readiness, metrics, sharePage, fleetMap,
    ]

    /// `/v1/drivers/nearby?lat=..&lng=..`.
    public static func nearbyDrivers(near coordinate: Coordinate) -> String {
        nearbyDrivers.path() + "?" + NearbyQuery(lat: coordinate.lat, lng: coordinate.lng).queryString
    }

    /// `/v1/trips/{id}`.
    public static func trip(id: String) -> String { trip.path(["id": id]) }

    /// `/v1/trips/{id}/cancel`.
    public static func cancel(tripID: String) -> String { cancelTrip.path(["id": tripID]) }

    /// `/v1/trips/{id}/check-in`.
    public static func checkIn(tripID: String) -> String { checkIn.path(["id": tripID]) }

    /// `/v1/trips/{id}/route`.
    public static func route(tripID: String) -> String { tripRoute.path(["id": tripID]) }

    /// `/v1/trips/{id}/share`.
    public static func share(tripID: String) -> String { shareTrip.path(["id": tripID]) }

    /// `/v1/trips/{id}/live`, with `?after=<seq>` when resuming after a stored cursor and `version=<v>` with the
    /// trip version the app shows.
    public static func live(tripID: String, after seq: Int64? = nil, version: Int? = nil) -> String {
        let path = tripLive.path(["id": tripID])
        let query = LiveQuery(after: seq, version: version).queryString
        return query.isEmpty ? path : path + "?" + query
    }

    /// `/v1/trips/{id}/accept`.
    public static func accept(tripID: String) -> String { acceptTrip.path(["id": tripID]) }

    /// `/v1/trips/{id}/decline`.
    public static func decline(tripID: String) -> String { declineTrip.path(["id": tripID]) }

    /// `/v1/trips/{id}/events`.
    public static func events(tripID: String) -> String { tripEvents.path(["id": tripID]) }

    /// `/v1/trips/{id}/live-activity`.
    public static func liveActivity(tripID: String) -> String { registerLiveActivity.path(["id": tripID]) }

    /// `/share/{token}`.
    public static func sharePage(token: String) -> String { sharePage.path(["token": token]) }
}
