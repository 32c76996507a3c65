import Foundation
import HailCore
import HailNet
import HailProtocol
import HailRoads
import HailThreads

/// Every REST endpoint of API v1: routing, authentication, authorization, validation, and the answer.
///
/// Independent of the socket library: `HailServer` feeds it requests from HailNet, and tests can call
/// `handle(_:)` directly. Checks run in one order everywhere: route (404/405), token (401), role (403),
/// body (400/413), ownership (403), trip state (409). Under HailNet a handler runs on the network loop that read the
/// request, so what computes for long (route searches, the fare's map match, the fleet's snapshot, the road map,
/// the metrics' text) goes `offTheLoop`.
public struct HailAPI: Sendable {
    let services: ServerServices

    /// Creates the API over the server's services.
    public init(services: ServerServices) { self.services = services }

    /// Answers one request; never throws, every failure becomes the documented error body.
    public func handle(_ request: APIRequest) async -> APIResponse {
        let (response, _) = await handleWithRoute(request)
        return response
    }

    /// Answers one request and names the route it matched (for logs and metrics).
    public func handleWithRoute(_ request: APIRequest) async -> (APIResponse, String) {
        switch answer(request) {
        case .now(let response, let route): return (response, route)
        case .later(let work): return await work()
        }
    }

    /// Answers one request at once when nothing needs to wait (the route, the token and the body checks, and a
    /// route answered from memory: `answerNow`), else hands back the rest of the work. Either way the response is
    /// the one `handleWithRoute` gives: the checks run once, in the same order.
    public func answer(_ request: APIRequest) -> APIAnswer {
        let method = HTTPMethod(rawValue: request.method)
        guard HTTPMethod.standard.contains(method) else {
            let error = APIError(code: .notImplemented, message: "\(method) is not an HTTP method this server knows")
            return .now(.error(error), route: "unmatched")
        }
        let lookup = Routes.match(method: method, target: request.target)
        let match: RouteMatch
        do throws(APIError) {
            match = try lookup.resolve()
        } catch {
            var response = APIResponse.error(error)
            // RFC 9110: a 405 lists the methods the path does take.
            if case .methodNotAllowed(let allowed) = lookup {
                response.headers[HailHeader.allow] = allowed.map(\.rawValue).joined(separator: ", ")
            }
            return .now(response, route: "unmatched")
        }
        // Only what an authenticated app proposed counts as a refused proposal, not a token for the wrong role.
        var authenticated = false
        let principal: Principal?
        do throws(APIError) {
            if match.route.isWebSocket {
                throw APIError(
                    code: .upgradeRequired,
                    message: "\(match.route.template) is a WebSocket: open it with a WebSocket client (GET with "
                        + "Connection: Upgrade and Upgrade: websocket)")
            }
            if request.body.count > services.configuration.maxBodyBytes {
                throw APIError(
                    code: .payloadTooLarge,
                    message: "the body is larger than \(services.configuration.maxBodyBytes) bytes")
            }
            principal = try authenticate(request, for: match)
            authenticated = true
            // JSON must be UTF-8 (RFC 8259), and Foundation's decoder lets invalid bytes through.
            if !request.body.isEmpty,
                request.header(HailHeader.contentType)?.hasPrefix(HailMediaType.locationBatch) != true,
                String(validating: request.body, as: UTF8.self) == nil
            {
                throw APIError(code: .invalidJSON, message: "the body is not valid UTF-8")
            }
        } catch {
            return refused(error, request, match, authenticated: authenticated)
        }
        if let response = answerNow(match) { return .now(response, route: match.route.name) }
        return .later { [self] in
            do throws(APIError) {
                let response = try await routeWithinDeadline(request, match, principal)
                await countRefusal(request, match, response)
                return (response, match.route.name)
            } catch {
                switch refused(error, request, match, authenticated: true) {
                case .now(let response, let route): return (response, route)
                case .later(let work): return await work()
                }
            }
        }
    }

    /// The answer to a request refused with `error`; later only when the refusal is an authenticated app's
    /// proposal, which is counted (`countRefusal`, which may read the trip).
    private func refused(_ error: APIError, _ request: APIRequest, _ match: RouteMatch, authenticated: Bool)
        -> APIAnswer
    {
        // A share link is opened by a person in a browser: a page that says why, not a JSON body.
        if match.route == Routes.sharePage { return .now(SharePage.refusal(error), route: match.route.name) }
        var response = APIResponse.error(error)
        // RFC 9110 15.5.22: a 426 names the protocol to switch to.
        if error.code == .upgradeRequired { response.headers[HailHeader.upgrade] = "websocket" }
        if error.code == .unavailable {
            response.headers[HailHeader.retryAfter] = String(services.configuration.unavailableRetryAfterSeconds)
        }
        guard authenticated, Self.countsAsRefusal(match, request, response) else {
            return .now(response, route: match.route.name)
        }
        return .later { [self, response] in
            await countRefusal(request, match, response)
            return (response, match.route.name)
        }
    }

    /// The routes answered from memory, with no store, no clock and no deadline race: nil for every other.
    private func answerNow(_ match: RouteMatch) -> APIResponse? {
        switch match.route {
        case Routes.health:
            // Encoded once: a balancer's or a benchmark's probe need not pay a JSON encoder per request.
            return .jsonBody(Self.healthBody, status: 200)
        case Routes.fleetMap:
            return APIResponse(
                status: 200, headers: [HailHeader.contentType: "text/html; charset=utf-8"],
                body: Self.fleetPage)
        default:
            return nil
        }
    }

    /// The operator's fleet page, encoded once.
    static let fleetPage = Data(FleetPage.html.utf8)

    /// Verifies the request's token (header, or `access_token` for WebSockets) and the route's role rule.
    func authenticate(_ request: APIRequest, for match: RouteMatch) throws(APIError) -> Principal? {
        let access = match.route.access
        if access == .everyone { return nil }
        var token = BearerToken.parse(request.header(HailHeader.authorization))
        // Browsers cannot set headers on a WebSocket or a page navigation, so those take `access_token`.
        if token == nil,
            match.route.isWebSocket || access == .shareToken || match.route == Routes.fleetMap
                || match.route == Routes.fleet || match.route == Routes.fleetRoads
        {
            token = match.query[HailHeader.accessTokenQueryParameter] ?? match.parameters["token"]
        }
        guard let token else {
            throw APIError(code: .unauthorized, message: "send Authorization: Bearer <token>")
        }
        if match.route == Routes.metrics, let metricsToken = services.configuration.metricsToken,
            HMAC.equal(Array(token.utf8), Array(metricsToken.utf8))
        {
            return Principal(role: .operator, subject: "metrics")
        }
        let principal = try services.tokens.verify(token, now: services.time.now()).principal
        let tripParameter = match.parameters["id"]
        let allowed: Bool
        switch access {
        case .everyone: allowed = true
        case .rider: allowed = principal.role == .rider
        case .driver: allowed = principal.role == .driver
        case .riderOrDriver:
            // A share token reads its one trip (and its stream), nothing else.
            allowed =
                principal.role == .rider || principal.role == .driver
                || (principal.role == .share && tripParameter != nil && principal.tripID == tripParameter
                    && (match.route == Routes.trip || match.route == Routes.tripLive))
        case .shareToken: allowed = principal.role == .share
        case .operator: allowed = principal.role == .operator
        }
        guard allowed else {
            throw APIError(
                code: .forbidden, message: "a \(principal.role.rawValue) token cannot use \(match.route.template)")
        }
        return principal
    }

    /// `/healthz`'s body, `{"status":"ok"}`, as the encoder writes it.
    static let healthBody = (try? HailJSON.encode(["status": "ok"])) ?? Data(#"{"status":"ok"}"#.utf8)

    /// The route's answer within the configured `requestDeadline` of the request's arrival (`receivedAt`), else 503
    /// `unavailable`: every backend call
    /// is bounded on its own, and this bounds a request that makes several (a commit, then its publishes). A
    /// request whose trip change was committed before the deadline is answered with that change instead (what
    /// follows a commit is the reconciler's to finish), so a 503 always means "nothing was committed, or retry
    /// the same key to learn it".
    private func routeWithinDeadline(_ request: APIRequest, _ match: RouteMatch, _ principal: Principal?)
        async throws(APIError) -> APIResponse
    {
        guard let deadline = services.configuration.requestDeadline else {
            return try await route(request, match, principal)
        }
        // The client has waited since the request arrived, not since this handler started: what it spent queued
        // (a busy loop, the requests ahead of it) comes off its budget, and one that used it all up there is
        // answered now, without starting work whose answer would come too late.
        let budget = RequestBudget(deadline: deadline, receivedAt: request.receivedAt)
        let remaining = budget.remaining(now: .now)
        guard remaining > .zero else {
            throw APIError(
                code: .unavailable,
                message: "no answer within \(deadline.components.seconds) s of its arrival: the server is busy; retry")
        }
        let answer = CommittedAnswer()
        let outcome = await CommittedAnswer.$current.withValue(answer) {
            await firstWithin(remaining) { () -> Result<APIResponse, APIError> in
                do throws(APIError) {
                    return .success(try await route(request, match, principal))
                } catch {
                    return .failure(error)
                }
            }
        }
        if outcome == nil, let committed = answer.committed { return committed }
        guard let outcome else {
            throw APIError(
                code: .unavailable,
                message:
                    "no answer within \(deadline.components.seconds) s of its arrival: a backend is slow or "
                    + "unreachable; retry")
        }
        return try outcome.get()
    }

    private func route(_ request: APIRequest, _ match: RouteMatch, _ principal: Principal?) async throws(APIError)
        -> APIResponse
    {
        let id = match.parameters["id"] ?? ""
        switch match.route {
        case Routes.readiness:
            let verdict = await services.readiness.verdict()
            var response = APIResponse.json(verdict, status: verdict.isReady ? 200 : 503)
            if !verdict.isReady { response.headers[HailHeader.retryAfter] = "1" }
            return response
        case Routes.metrics:
            await services.updateScrapeGauges()
            let text = await offTheLoop { [services] in services.metrics.registry.render() }
            return APIResponse(
                status: 200, headers: [HailHeader.contentType: HailMediaType.prometheus], body: Data(text.utf8))
        case Routes.estimates:
            return try await estimates(request, rider: principal!.subject)
        case Routes.nearbyDrivers:
            let query = try NearbyQuery(query: match.query)
            let cars = try await call {
                try await services.fleet.nearbyCars(around: Coordinate(lat: query.lat, lng: query.lng))
            }
            return .json(cars)
        case Routes.requestTrip:
            return try await requestTrip(request, rider: principal!.subject)
        case Routes.activeTrip:
            let record = try await call { try await services.trips.activeRecord(riderID: principal!.subject) }
            guard let record else { return .noContent }
            return .json(await services.withLiveFields(record.tripForRider))
        case Routes.trip:
            let record = try await readableTrip(id, by: principal!)
            // The pickup PIN only to the trip's rider: never its driver, never a share link.
            let trip = principal!.role == .rider ? record.tripForRider : record.trip
            return .json(await services.withLiveFields(trip))
        case Routes.cancelTrip:
            return try await cancel(request, tripID: id, by: principal!)
        case Routes.checkIn:
            return try await checkIn(request, tripID: id, rider: principal!)
        case Routes.shareTrip:
            return try await share(tripID: id, by: principal!)
        case Routes.driverStatus:
            let body = try WireDecoder.decodeRequest(DriverStatusRequest.self, from: request.body)
            try await call {
                try await services.fleet.setStatus(
                    driverID: principal!.subject, online: body.online, degraded: body.degraded ?? false)
            }
            return .json(DriverStatusRequest(online: body.online, degraded: body.degraded ?? false))
        case Routes.driverLocations:
            return try await locations(request, driverID: principal!.subject)
        case Routes.driverTrip:
            let record = try await call { try await services.trips.activeRecord(driverID: principal!.subject) }
            guard let record else { return .noContent }
            return .json(await services.withLiveFields(record.trip))
        case Routes.acceptTrip:
            let key = try IdempotencyKey.require(request.header(HailHeader.idempotencyKey))
            let idempotency = Self.idempotency(principal!, route: "acceptTrip:\(id)", key: key, body: request.body)
            let outcome = try await services.dispatcher.accept(
                tripID: id, driverID: principal!.subject, idempotency: idempotency)
            return .jsonBody(outcome.body, status: outcome.status)
        case Routes.declineTrip:
            try await services.dispatcher.decline(tripID: id, driverID: principal!.subject)
            return .noContent
        case Routes.tripEvents:
            return try await driverEvent(request, tripID: id, driverID: principal!.subject)
        case Routes.tripRoute:
            return try await reportRoute(request, tripID: id, driver: principal!)
        case Routes.registerDevice:
            return try await registerDevice(request, principal!)
        case Routes.unregisterDevice:
            try await call { try await services.trips.removeDevice(principal: principal!.description) }
            return .noContent
        case Routes.registerLiveActivity:
            return try await registerLiveActivity(request, tripID: id, rider: principal!)
        case Routes.sharePage:
            let principal = principal!
            return try await offTheLoop { () async throws(APIError) -> APIResponse in try await sharePage(principal) }
        case Routes.config:
            return await config(request, principal!)
        case Routes.telemetry:
            return try await telemetry(request, principal!)
        case Routes.fleet:
            let query = match.query
            return try await offTheLoop { () async throws(APIError) -> APIResponse in try await fleet(query) }
        case Routes.fleetRoads:
            return await offTheLoop { [services] () -> APIResponse in
                .json(RoadMap(graph: services.routing.network?.graph))
            }
        case Routes.demoRider:
            guard let demo = services.configuration.demo?.attached else { throw Self.notDemo }
            guard let view = await demo.riderView(tripID: id) else { return .noContent }
            return .json(view)
        case Routes.demoFault:
            guard let demo = services.configuration.demo?.attached else { throw Self.notDemo }
            let fault = try WireDecoder.decodeRequest(DemoFault.self, from: request.body)
            return .json(try await demo.press(fault))
        case Routes.leafletAsset:
            return services.configuration.leaflet.response(for: match.parameters["file"] ?? "")
        default:
            throw APIError.notFound("no such route")
        }
    }

    /// A demo route on a server that is not `hail demo`.
    static let notDemo = APIError.notFound("the demo's console exists only in `hail demo`")

    /// The operator's view of the fleet. Idle drivers are found around `lat`/`lng`, by default the centre
    /// of Monaco, where the demo's maps lie.
    private func fleet(_ query: [String: String]) async throws(APIError) -> APIResponse {
        // A value that is there but not a number is refused, never silently replaced by the default.
        guard let lat = query["lat"].map(Double.init) ?? 43.7384 else {
            throw APIError.invalidField("lat", "lat and lng must be numbers")
        }
        guard let lng = query["lng"].map(Double.init) ?? 7.4246 else {
            throw APIError.invalidField("lng", "lat and lng must be numbers")
        }
        guard (-90...90).contains(lat), (-180...180).contains(lng) else {
            throw APIError.invalidField("lat", "lat and lng must be a point on Earth")
        }
        let center = Coordinate(lat: lat, lng: lng)
        let active = try await call { try await services.trips.activeRecords() }
        let cars = try await call { try await services.fleet.snapshotCars(activeTrips: active, around: center) }
        return .json(
            FleetSnapshot(
                at: services.time.now(), cars: cars, trips: active.map(FleetSnapshot.ActiveTrip.init)))
    }

    private func estimates(_ request: APIRequest, rider: String) async throws(APIError) -> APIResponse {
        let body = try WireDecoder.decodeRequest(EstimateRequest.self, from: request.body)
        let client = ClientInfo(headerValue: request.header(HailHeader.client))
        // The rider's cohort picks the route provider, so a provider can be switched off for one app version.
        let estimator = services.estimator(for: .rider(rider, client: client, at: body.pickup))
        // Three route searches on the roads: on the pool, where they hold up no socket. Straight lines are a few
        // multiplications, cheaper than the two thread switches, so they are quoted here on the loop.
        guard estimator.provider is GraphRouteProvider else { return try await quote(body, estimator) }
        return try await offTheLoop { () async throws(APIError) -> APIResponse in try await quote(body, estimator) }
    }

    private func quote(_ body: EstimateRequest, _ estimator: RouteEstimator) async throws(APIError) -> APIResponse {
        let distance = estimator.distance(from: body.pickup, to: body.dropoff)
        let duration = Double(estimator.seconds(from: body.pickup, to: body.dropoff))
        let nearest = try await call {
            try await services.fleet.availableDrivers(near: body.pickup, excluding: [], limit: 1)
        }
        // With nobody near, quote a typical wait rather than a confident zero.
        let pickupETA =
            nearest.first.map { estimator.seconds(from: $0.coordinate, to: body.pickup) }
            ?? services.configuration.noDriverETASeconds
        let estimates = services.pricing.products.compactMap { product -> Estimate? in
            guard let fare = services.pricing.fare(for: product, distanceMeters: distance, durationSeconds: duration)
            else { return nil }
            return Estimate(productID: product, fare: fare, etaSeconds: pickupETA)
        }
        return .json(estimates)
    }

    private func requestTrip(_ request: APIRequest, rider: String) async throws(APIError) -> APIResponse {
        let key = try IdempotencyKey.require(request.header(HailHeader.idempotencyKey))
        let principal = Principal(role: .rider, subject: rider)
        let idempotency = Self.idempotency(principal, route: "requestTrip", key: key, body: request.body)
        if let replayed = try await services.authority.replay(idempotency) {
            return .jsonBody(replayed.body, status: replayed.status)
        }
        let body = try WireDecoder.decodeRequest(TripRequest.self, from: request.body)
        guard services.pricing.tariffs[body.productID] != nil else {
            let known = services.pricing.products.map(\.rawValue).joined(separator: ", ")
            throw APIError.invalidField("productID", "productID must be one of \(known)")
        }
        // The common case answered without a commit; the database's unique index is what decides a race.
        if let active = try await call({ try await services.trips.activeRecord(riderID: rider) }) {
            // That trip may be this very key's, committed by a retry racing this request: then it is the answer.
            if let replayed = try await services.authority.replay(idempotency) {
                return .jsonBody(replayed.body, status: replayed.status)
            }
            throw TripAuthority.apiError(
                for: ActiveTripConflict(party: .rider, subject: rider, tripID: active.trip.id))
        }
        var cohort = CohortKey(
            role: .rider, subject: rider, client: ClientInfo(headerValue: request.header(HailHeader.client)))
        cohort.position = body.pickup
        let pin =
            body.requirePickupPIN == true || services.flags.current.resolve(cohort).values.pickupPIN
            ? services.newPickupPIN() : nil
        let outcome = try await services.authority.apply(
            .request(body, tripID: services.newTripID(), pickupPIN: pin), tripID: "", by: .rider(rider),
            idempotency: idempotency)
        return .jsonBody(outcome.body, status: outcome.status)
    }

    private func cancel(_ request: APIRequest, tripID: String, by principal: Principal) async throws(APIError)
        -> APIResponse
    {
        let key = try IdempotencyKey.require(request.header(HailHeader.idempotencyKey))
        _ = try WireDecoder.decodeRequest(CancelRequest.self, from: request.body)
        let idempotency = Self.idempotency(principal, route: "cancelTrip:\(tripID)", key: key, body: request.body)
        if let replayed = try await services.authority.replay(idempotency) {
            return .jsonBody(replayed.body, status: replayed.status)
        }
        _ = try await readableTrip(tripID, by: principal)
        let intent: TripIntent = principal.role == .rider ? .riderCancels : .driverCancels
        let actor: TripActor = principal.role == .rider ? .rider(principal.subject) : .driver(principal.subject)
        let outcome = try await services.authority.apply(intent, tripID: tripID, by: actor, idempotency: idempotency)
        return .jsonBody(outcome.body, status: outcome.status)
    }

    /// The rider's answer to the trip's alert: recorded in the trip's log (`checkIn` with the answer) and counted by
    /// answer; the answer is the rider's trip with its alert answered. A trip with no alert, or not under way, is 409.
    private func checkIn(_ request: APIRequest, tripID: String, rider principal: Principal) async throws(APIError)
        -> APIResponse
    {
        let key = try IdempotencyKey.require(request.header(HailHeader.idempotencyKey))
        let body = try WireDecoder.decodeRequest(CheckInRequest.self, from: request.body)
        let idempotency = Self.idempotency(principal, route: "checkIn:\(tripID)", key: key, body: request.body)
        if let replayed = try await services.authority.replay(idempotency) {
            return .jsonBody(replayed.body, status: replayed.status)
        }
        _ = try await readableTrip(tripID, by: principal)
        let outcome = try await services.authority.apply(
            .checkIn(body.answer, at: services.time.now()), tripID: tripID, by: .rider(principal.subject),
            idempotency: idempotency)
        if !outcome.replayed { services.metrics.checkInAnswered(body.answer) }
        return .jsonBody(outcome.body, status: outcome.status)
    }

    /// The route the assigned driver's navigation follows on the trip under way (the trip is checked before the body):
    /// recorded as a change of the trip
    /// (`routeReported` in its log, with the revision) unless a route as new is already there, which makes the
    /// request idempotent; the trip watch judges the car against it from then on. 204 either way.
    private func reportRoute(_ request: APIRequest, tripID: String, driver principal: Principal) async throws(APIError)
        -> APIResponse
    {
        // The trip first (404, 403, 409), then the body: a route is judged only for a trip it could be the plan of.
        let record = try await readableTrip(tripID, by: principal)
        guard record.trip.state == .onTrip else {
            throw APIError.invalidState(
                "a route is reported only on a trip under way; this one is \(record.trip.state)")
        }
        let body = try WireDecoder.decodeRequest(TripRouteReport.self, from: request.body)
        if let reported = record.route, reported.revision >= body.revision, record.trip.state == .onTrip {
            return .noContent
        }
        let route = ReportedRoute(
            revision: body.revision, path: body.coordinates ?? [], reportedAt: services.time.now())
        let outcome = try await services.authority.apply(
            .routeReported(route), tripID: tripID, by: .driver(principal.subject))
        if outcome.record?.route == route { services.metrics.routeReported() }
        return .noContent
    }

    private func share(tripID: String, by principal: Principal) async throws(APIError) -> APIResponse {
        let record = try await readableTrip(tripID, by: principal)
        guard record.riderID == principal.subject else {
            throw APIError(code: .forbidden, message: "only the trip's rider can share it")
        }
        guard record.trip.state.isActive else { throw APIError.invalidState("a trip that has ended cannot be shared") }
        let now = services.time.now()
        let expiresAt = now.addingTimeInterval(services.configuration.shareLinkLifetime)
        let claims = AccessToken(
            role: .share, sub: "share-\(services.newTripID())",
            exp: Int64(expiresAt.timeIntervalSince1970.rounded(.down)),
            iat: Int64(now.timeIntervalSince1970), trip: tripID)
        let token = services.tokens.mint(claims)
        let url = services.configuration.publicBaseURL.appendingPathComponent("share").appendingPathComponent(token)
        return .json(ShareLinkResponse(url: url, token: token, expiresAt: claims.expiresAt))
    }

    private func registerDevice(_ request: APIRequest, _ principal: Principal) async throws(APIError) -> APIResponse {
        let body = try WireDecoder.decodeRequest(DeviceRegistration.self, from: request.body)
        let device = DeviceTokenRecord(
            principal: principal.description, token: body.token.lowercased(), environment: body.environment,
            bundleID: body.bundleID, updatedAt: services.time.now())
        try await call { try await services.trips.saveDevice(device) }
        return .noContent
    }

    private func registerLiveActivity(_ request: APIRequest, tripID: String, rider: Principal) async throws(APIError)
        -> APIResponse
    {
        let body = try WireDecoder.decodeRequest(LiveActivityRegistration.self, from: request.body)
        let record = try await readableTrip(tripID, by: rider)
        // The activity ends with the trip, and so do its pushes: a token for an ended trip would never be used.
        guard record.trip.state.isActive else {
            throw APIError.invalidState("trip \(tripID) has ended; its Live Activity gets no more pushes")
        }
        let activity = LiveActivityTokenRecord(
            tripID: tripID, riderID: rider.subject, token: body.token.lowercased(), updatedAt: services.time.now())
        try await call { try await services.trips.saveLiveActivity(activity) }
        return .noContent
    }

    private func sharePage(_ principal: Principal) async throws(APIError) -> APIResponse {
        guard let tripID = principal.tripID else { throw APIError(code: .forbidden, message: "not a share token") }
        let record = try await readableTrip(tripID, by: principal)
        // The streets around the trip, drawn under it: the page needs no tile server and no other route.
        let trip = record.trip
        let roads = RoadMap(
            graph: services.routing.network?.graph,
            around: [trip.pickup, trip.dropoff] + [trip.driverLocation?.coordinate].compactMap { $0 },
            margin: SharePage.roadMargin)
        return APIResponse(
            status: 200, headers: [HailHeader.contentType: "text/html; charset=utf-8"],
            body: Data(SharePage.html(tripID: trip.id, state: trip.state, roads: roads.segments).utf8))
    }

    private func locations(_ request: APIRequest, driverID: String) async throws(APIError) -> APIResponse {
        let batch: LocationBatch
        if request.header(HailHeader.contentType)?.hasPrefix(HailMediaType.locationBatch) == true {
            batch = try WireDecoder.decodeLocationBatch(binary: request.body)
        } else {
            batch = try WireDecoder.decodeRequest(LocationBatch.self, from: request.body)
        }
        let client = ClientInfo(headerValue: request.header(HailHeader.client))
        let result = try await call {
            try await services.fleet.ingest(driverID: driverID, batch: batch, client: client)
        }
        return .json(LocationAck(seq: result.ackSeq, offer: await openOffer(driverID: driverID)))
    }

    /// The offer `driverID` holds now, for the answer to a batch sent over HTTP (a driver whose stream is down hears of
    /// it there); nil when there is none, or when it or its trip cannot be read: the batch is acknowledged all the same.
    private func openOffer(driverID: String) async -> TripOffer? {
        guard let offer = await services.dispatcher.currentOffer(for: driverID),
            let record = try? await services.trips.record(id: offer.tripID), record.trip.state == .searching
        else { return nil }
        return TripOffer(trip: record.trip, expiresAt: offer.expiresAt)
    }

    private func driverEvent(_ request: APIRequest, tripID: String, driverID: String) async throws(APIError)
        -> APIResponse
    {
        let body = try WireDecoder.decodeRequest(TripEventRequest.self, from: request.body)
        let principal = Principal(role: .driver, subject: driverID)
        let idempotency = Self.idempotency(
            principal, route: "tripEvents:\(tripID)", key: body.idempotencyKey, body: request.body)
        if let replayed = try await services.authority.replay(idempotency) {
            return .jsonBody(replayed.body, status: replayed.status)
        }
        // Ownership before anything else: only the assigned driver may learn the fare or change the trip.
        let record = try await readableTrip(tripID, by: principal)
        // Where the car stands, read before a start is committed: the fare's path begins at this fix. Read after the
        // commit, the driver's later fixes (sent once the app showed the trip under way) were already in.
        let standing =
            body.event == .started && record.trip.state == .driverArrived
            ? await services.fleet.standing(driverID: driverID) : nil
        let check = try await proximityCheck(
            body.event, record: record, driverID: driverID, pin: body.pin, standing: standing)
        let intent: TripIntent
        switch body.event {
        case .arrived: intent = .arrived
        case .started: intent = .started
        case .ended:
            // The fixes still on the phone at the tap join the trip's path before it is priced; a trip that is not
            // under way is refused below and keeps its path as it was.
            if let path = body.path, !path.isEmpty, record.trip.state == .onTrip {
                try await call { try await services.fleet.tripEnding(tripID: tripID, path: path) }
            }
            // The map match of the whole trip: on the pool, where it holds up no socket.
            let (fare, receipt) = try await offTheLoop { [services] () async throws(APIError) -> (Money, TripReceipt) in
                try await services.finalFare(tripID: tripID)
            }
            intent = .ended(fare: fare, receipt: receipt)
        }
        // A start's first point of the fare's path goes in before the start is published: a trip the app ends at once
        // must find it, even on a node whose publish and observers wait for a slow Redis.
        var committed: (@Sendable (TripRecord) async -> Void)?
        if body.event == .started {
            let (fleet, start) = (services.fleet, standing?.fix)
            committed = { _ in await fleet.tripStarted(tripID: tripID, driverID: driverID, from: start) }
        }
        let outcome = try await services.authority.apply(
            intent, tripID: tripID, by: .driver(driverID), idempotency: idempotency, check: check,
            committed: committed)
        if body.event == .started, outcome.status == 200 {
            // The plan is a route search: on the pool, where it holds up no socket.
            if !outcome.replayed, let started = outcome.record {
                await offTheLoop { [services] in await services.watchStartedTrip(started, driverID: driverID) }
            }
        }
        return .jsonBody(outcome.body, status: outcome.status)
    }

    /// Weighs `arrived` or `started` against the driver's freshest fix (`PickupProximity`): a fresh fix more than
    /// 150 m from the pickup is a 409 naming the distance; no fresh fix lets the event through, marked unverified.
    /// Only an event the trip's state allows is weighed, so a late retry still gets the state's 409.
    private func proximityCheck(
        _ event: TripEventKind, record: TripRecord, driverID: String, pin: String?,
        standing: (position: DriverLocation?, fix: LocationPoint?)?
    ) async throws(APIError) -> StartCheck {
        let due: TripState
        switch event {
        case .arrived: due = .driverAssigned
        case .started: due = .driverArrived
        case .ended: return StartCheck()
        }
        guard record.trip.state == due else { return StartCheck(pin: pin) }
        let position: DriverLocation?
        if let standing {
            position = standing.position
        } else {
            position = await services.fleet.position(driverID: driverID)
        }
        switch PickupProximity.judge(position, pickup: record.trip.pickup, now: services.time.now()) {
        case .near: return StartCheck(pin: pin)
        case .unverified: return StartCheck(pin: pin, unverified: true)
        case .far(let distance):
            let meters = Int(distance.rounded())
            throw APIError(
                code: .invalidState,
                message: "your last position is \(meters) m from the pickup; \(event.rawValue) needs you within "
                    + "\(Int(PickupProximity.maxDistanceMeters)) m",
                reason: .tooFarFromPickup, distanceMeters: meters)
        }
    }

    /// The trip if `principal` may read it: its rider, its assigned driver, or a live share token for it.
    func readableTrip(_ tripID: String, by principal: Principal) async throws(APIError) -> TripRecord {
        guard let record = try await call({ try await services.trips.record(id: tripID) }) else {
            throw APIError.notFound("there is no trip \(tripID)")
        }
        switch principal.role {
        case .rider where record.riderID == principal.subject: return record
        case .driver where record.driverID == principal.subject: return record
        case .share where principal.tripID == tripID:
            guard record.trip.state.isActive else {
                throw APIError(code: .forbidden, message: "this share link ended with the trip")
            }
            return record
        default:
            throw APIError(code: .forbidden, message: "trip \(tripID) is not yours")
        }
    }

    static func idempotency(_ principal: Principal, route: String, key: String, body: Data) -> TripAuthority.Idempotency
    {
        TripAuthority.Idempotency(
            scope: IdempotencyScope(principal: principal.description, route: route, key: key.lowercased()),
            fingerprint: body)
    }

    func call<T: Sendable>(_ work: @Sendable () async throws -> T) async throws(APIError) -> T {
        do {
            return try await work()
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(code: .unavailable, message: "storage is unavailable: \(error)")
        }
    }
}
