import HailCore
import HailProtocol
import Testing

@Suite struct RouteMatching {
    @Test(arguments: [
        ("POST", "/v1/estimates", "estimates", [:] as [String: String]),
        ("GET", "/v1/drivers/nearby?lat=43.73&lng=7.42", "nearbyDrivers", [:]),
        ("POST", "/v1/trips", "requestTrip", [:]),
        ("GET", "/v1/trips/active", "activeTrip", [:]),
        ("GET", "/v1/trips/trip_1", "trip", ["id": "trip_1"]),
        ("POST", "/v1/trips/trip_1/cancel", "cancelTrip", ["id": "trip_1"]),
        ("POST", "/v1/trips/trip_1/share", "shareTrip", ["id": "trip_1"]),
        ("GET", "/v1/trips/trip_1/live?after=42", "tripLive", ["id": "trip_1"]),
        ("POST", "/v1/drivers/me/status", "driverStatus", [:]),
        ("GET", "/v1/drivers/me/live", "driverLive", [:]),
        ("POST", "/v1/drivers/me/locations", "driverLocations", [:]),
        ("GET", "/v1/drivers/me/trip", "driverTrip", [:]),
        ("POST", "/v1/trips/trip_1/accept", "acceptTrip", ["id": "trip_1"]),
        ("POST", "/v1/trips/trip_1/decline", "declineTrip", ["id": "trip_1"]),
        ("POST", "/v1/trips/trip_1/events", "tripEvents", ["id": "trip_1"]),
        ("PUT", "/v1/trips/trip_1/route", "tripRoute", ["id": "trip_1"]),
        ("PUT", "/v1/devices/me", "registerDevice", [:]),
        ("DELETE", "/v1/devices/me", "unregisterDevice", [:]),
        ("PUT", "/v1/trips/trip_1/live-activity", "registerLiveActivity", ["id": "trip_1"]),
        ("GET", "/v1/fleet", "fleet", [:]),
        ("GET", "/v1/fleet/roads", "fleetRoads", [:]),
        ("GET", "/healthz", "health", [:]),
        ("GET", "/metrics", "metrics", [:]),
        ("GET", "/share/s3cr3t", "sharePage", ["token": "s3cr3t"]),
        ("GET", "/", "fleetMap", [:]),
    ])
    func everyRouteMatches(method: String, target: String, name: String, parameters: [String: String]) throws {
        let match = try Routes.match(method: HTTPMethod(rawValue: method), target: target).resolve()
        #expect(match.route.name == name)
        #expect(match.parameters == parameters)
    }

    @Test func tableListsEveryRouteOnceWithItsTemplate() {
        // 24, then the operator's stream, the map library, the demo console's two routes, the flags, telemetry,
        // readiness, the rider's check-in and the driver's reported route.
        #expect(Routes.all.count == 33)
        #expect(Set(Routes.all.map(\.name)).count == 33)
        #expect(Set(Routes.all.map(\.description)).count == 33)
        #expect(Routes.checkIn.description == "POST /v1/trips/{id}/check-in")
        #expect(Routes.tripRoute.description == "PUT /v1/trips/{id}/route")
        #expect(Routes.readiness.description == "GET /readyz")
        #expect(Routes.config.description == "GET /v1/config")
        #expect(Routes.telemetry.description == "POST /v1/telemetry")
        #expect(Routes.cancelTrip.description == "POST /v1/trips/{id}/cancel")
        #expect(
            Routes.all.filter(\.isWebSocket).map(\.template) == [
                "/v1/trips/{id}/live", "/v1/drivers/me/live", "/v1/fleet/live",
            ])
        #expect(
            Routes.all.filter(\.requiresIdempotencyKey).map(\.name) == [
                "requestTrip", "cancelTrip", "checkIn", "acceptTrip",
            ])
    }

    @Test func everyTemplateMatchesItselfWithSampleParameters() throws {
        for route in Routes.all {
            let values = Dictionary(uniqueKeysWithValues: route.parameterNames.map { ($0, "x y/\($0)") })
            let match = try Routes.match(method: route.method, target: route.path(values)).resolve()
            #expect(match.route == route)
            #expect(match.parameters == values)
        }
    }

    @Test func queryIsDecoded() throws {
        let match = try Routes.match(method: .get, target: "/v1/drivers/nearby?lat=43.73&lng=7.42&lat=1").resolve()
        #expect(match.query == ["lat": "43.73", "lng": "7.42"])
        let nearby = try NearbyQuery(query: match.query)
        #expect(nearby == NearbyQuery(lat: 43.73, lng: 7.42))
    }

    @Test func percentEncodedIdsAreDecodedAfterSplitting() throws {
        let match = try Routes.match(method: .post, target: "/v1/trips/a%2Fb%20c%C3%A9/cancel").resolve()
        #expect(match.route == Routes.cancelTrip)
        #expect(match[parameter: "id"] == "a/b cé")
        #expect(Routes.cancel(tripID: "a/b cé") == "/v1/trips/a%2Fb%20c%C3%A9/cancel")
    }

    @Test func literalSegmentsBeatParameters() throws {
        #expect(try Routes.match(method: .get, target: "/v1/trips/active").resolve().route == Routes.activeTrip)
        #expect(try Routes.match(method: .get, target: "/v1/trips/actives").resolve().route == Routes.trip)
    }

    @Test(arguments: [
        ("GET", "/v1/estimates", ["POST"]),
        ("POST", "/v1/trips/active", ["GET"]),
        ("DELETE", "/v1/trips/t1", ["GET"]),
        ("GET", "/v1/trips/t1/cancel", ["POST"]),
        ("POST", "/healthz", ["GET"]),
    ])
    func wrongMethodIs405WithTheAllowedOnes(method: String, target: String, allowed: [String]) {
        let lookup = Routes.match(method: HTTPMethod(rawValue: method), target: target)
        #expect(lookup == .methodNotAllowed(allowed: allowed.map(HTTPMethod.init(rawValue:))))
        #expect(throws: APIError(code: .methodNotAllowed, message: "this path accepts \(allowed[0])")) {
            try lookup.resolve()
        }
    }

    @Test(arguments: [
        "/v2/trips", "/v1/trips//cancel", "/v1/trips/", "/v1/trips/t1/cancel/", "//", "", "v1/trips",
        "/v1/trips/%ZZ", "/v1/trips/%E2%82", "/v1/trips/t1/unknown", "/share/", "/share",
        "/v1/drivers/me/locations/extra",
    ])
    func unknownPathsAre404(target: String) {
        #expect(Routes.match(method: .get, target: target) == .notFound)
        #expect(Routes.match(method: .post, target: target) == .notFound)
        #expect(throws: APIError.notFound("no such route")) { try Routes.match(method: .get, target: target).resolve() }
    }

    @Test func methodsAreCaseInsensitive() throws {
        #expect(
            try Routes.match(method: HTTPMethod(rawValue: "post"), target: "/v1/trips").resolve().route.name
                == "requestTrip")
    }
}

@Suite struct PathBuilding {
    @Test func buildersProduceConcretePaths() {
        #expect(Routes.trip(id: "t1") == "/v1/trips/t1")
        #expect(Routes.cancel(tripID: "t1") == "/v1/trips/t1/cancel")
        #expect(Routes.share(tripID: "t1") == "/v1/trips/t1/share")
        #expect(Routes.accept(tripID: "t1") == "/v1/trips/t1/accept")
        #expect(Routes.events(tripID: "t1") == "/v1/trips/t1/events")
        #expect(Routes.live(tripID: "t1") == "/v1/trips/t1/live")
        #expect(Routes.live(tripID: "t1", after: 42) == "/v1/trips/t1/live?after=42")
        #expect(Routes.sharePage(token: "a+b") == "/share/a%2Bb")
        #expect(
            Routes.nearbyDrivers(near: Coordinate(lat: 43.73, lng: -7.42)) == "/v1/drivers/nearby?lat=43.73&lng=-7.42")
        #expect(Routes.fleetMap.path() == "/")
    }

    @Test func liveQueryReadsTheCursor() throws {
        #expect(try LiveQuery(query: ["after": "42"]) == LiveQuery(after: 42))
        #expect(try LiveQuery(query: [:]) == LiveQuery(after: nil))
        #expect(throws: APIError.invalidField("after", "after must be a non-negative integer")) {
            try LiveQuery(query: ["after": "-1"])
        }
    }

    @Test func nearbyQueryNamesTheBadParameter() {
        #expect(throws: APIError.missingField("lng")) { try NearbyQuery(query: ["lat": "1"]) }
        #expect(throws: APIError.invalidField("lat", "lat must be a number")) {
            try NearbyQuery(query: ["lat": "north", "lng": "1"])
        }
        #expect(throws: APIError.invalidField("lat", "lat must be between -90 and 90")) {
            try NearbyQuery(query: ["lat": "91", "lng": "1"])
        }
    }
}

@Suite struct Headers {
    @Test func namesAreTheWireSpellings() {
        #expect(HailHeader.authorization == "Authorization")
        #expect(HailHeader.idempotencyKey == "Idempotency-Key")
        #expect(HailHeader.client == "X-Hail-Client")
        #expect(HailHeader.retryAfter == "Retry-After")
        #expect(HailHeader.requestID == "X-Request-Id")
    }

    @Test(arguments: [
        ("hail-rider/1.4.0 (iPhone15,2)", "hail-rider", "1.4.0" as String?, "iPhone15,2" as String?),
        ("hail-driver/2.0.1", "hail-driver", "2.0.1", nil),
        ("hail-rider", "hail-rider", nil, nil),
        ("  hail-rider/1.4.0   (iPad13,4)  ", "hail-rider", "1.4.0", "iPad13,4"),
        ("hail-rider/ (iPhone15,2", "hail-rider", nil, "iPhone15,2"),
        ("curl/8.5.0 extra words", "curl", "8.5.0", nil),
        ("hail-sim/0.1 ()", "hail-sim", "0.1", nil),
    ])
    func clientHeaderIsParsedTolerantly(header: String, app: String, version: String?, model: String?) {
        #expect(ClientInfo(headerValue: header) == ClientInfo(app: app, version: version, deviceModel: model))
    }

    @Test func emptyClientHeaderIsNil() {
        #expect(ClientInfo(headerValue: nil) == nil)
        #expect(ClientInfo(headerValue: "   ") == nil)
        #expect(ClientInfo(headerValue: "/1.0 (x)") == nil)
        #expect(
            ClientInfo(app: "hail-rider", version: "1.4.0", deviceModel: "iPhone15,2").headerValue
                == "hail-rider/1.4.0 (iPhone15,2)")
    }

    @Test func bearerTokenIsRead() {
        #expect(BearerToken.parse("Bearer abc.def") == "abc.def")
        #expect(BearerToken.parse("bearer  abc") == "abc")
        #expect(BearerToken.parse("Basic abc") == nil)
        #expect(BearerToken.parse("Bearer") == nil)
        #expect(BearerToken.parse("Bearer a b") == nil)
        #expect(BearerToken.parse(nil) == nil)
        #expect(BearerToken.headerValue("abc") == "Bearer abc")
    }

    @Test func idempotencyHeaderIsRequiredAndAUUID() throws {
        #expect(
            try IdempotencyKey.require(" 7c9e6679-7425-40de-944b-e07fc1f90ae7 ")
                == "7c9e6679-7425-40de-944b-e07fc1f90ae7")
        #expect(throws: APIError.missingField("Idempotency-Key")) { try IdempotencyKey.require(nil) }
        #expect(throws: APIError.self) { try IdempotencyKey.require("7c9e6679742540de944be07fc1f90ae7") }
        #expect(!IdempotencyKey.isValid("7c9e6679-7425-40de-944b-e07fc1f90aeg"))
    }
}
