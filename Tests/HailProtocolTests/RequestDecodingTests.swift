import Foundation
import HailCore
import HailProtocol
import Testing

/// The APIError a body decodes to, or nil when it decodes.
private func failure<T: Decodable & Validatable>(_ type: T.Type, _ body: String) -> APIError? {
    do {
        _ = try WireDecoder.decodeRequest(type, from: Data(body.utf8))
        return nil
    } catch {
        return error
    }
}

private let dropoff = #""dropoff":{"lat":43.7314,"lng":7.4197}"#

@Suite struct RequestDecoding {
    @Test func validBodiesDecode() throws {
        let body = #"{"pickup":{"lat":43.7396,"lng":7.4276},\#(dropoff),"productID":"economy"}"#
        let request = try WireDecoder.decodeRequest(TripRequest.self, from: Data(body.utf8))
        #expect(request == TripRequest(pickup: Fixtures.casino, dropoff: Fixtures.palace, productID: .economy))
    }

    @Test(arguments: [
        (#"{"pickup": "#, "invalid_json", nil as String?, "the body is not valid JSON"),
        ("", "invalid_json", nil, "the body is empty; expected a JSON object"),
        (#"{"pickup":{"lat":NaN,"lng":7.4},\#(dropoff)}"#, "invalid_json", nil, "the body is not valid JSON"),
        (
            #"{"pickup":{"lat":"43.7","lng":7.4},\#(dropoff)}"#, "invalid_field", "pickup.lat",
            "lat must be a number"
        ),
        (#"{"pickup":{"lat":43.7},\#(dropoff)}"#, "missing_field", "pickup.lng", "pickup.lng is required"),
        (#"{"pickup":{"lat":43.7,"lng":7.4}}"#, "missing_field", "dropoff", "dropoff is required"),
        (
            #"{"pickup":{"lat":91,"lng":7.4},\#(dropoff)}"#, "invalid_field", "pickup.lat",
            "lat must be between -90 and 90"
        ),
        (
            #"{"pickup":{"lat":43.7,"lng":7.4},"dropoff":{"lat":43.7,"lng":-181}}"#, "invalid_field", "dropoff.lng",
            "lng must be between -180 and 180"
        ),
        (#"{"pickup":null,\#(dropoff)}"#, "invalid_field", "pickup", "pickup must be an object, not null"),
        (#"[1,2]"#, "invalid_field", nil, "the body must be an object"),
    ])
    func estimateErrorsNameTheField(body: String, code: String, field: String?, message: String) {
        let error = failure(EstimateRequest.self, body)
        #expect(error == APIError(code: APIError.Code(rawValue: code), message: message, field: field))
        #expect(error?.httpStatus == 400)
    }

    @Test func productIDMustNotBeEmpty() {
        let body = #"{"pickup":{"lat":43.7,"lng":7.4},\#(dropoff),"productID":""}"#
        #expect(failure(TripRequest.self, body) == .invalidField("productID", "productID must not be empty"))
    }

    @Test func nonFiniteValuesNameTheField() {
        let request = TripRequest(pickup: Coordinate(lat: .nan, lng: 7), dropoff: Fixtures.palace, productID: .xl)
        #expect(throws: APIError.invalidField("pickup.lat", "lat must be a finite number")) { try request.validate() }
        let point = LocationPoint(lat: 1, lng: 2, accuracy: .infinity, heading: 0, speed: 0, t: Fixtures.receivedAt)
        #expect(throws: APIError.invalidField("points[0].accuracy", "accuracy must be a finite number")) {
            try LocationBatch(seq: 1, points: [point]).validate()
        }
    }

    @Test func idempotencyKeyMustBeAUUID() {
        let body = #"{"event":"arrived","idempotencyKey":"tap-1"}"#
        #expect(
            failure(TripEventRequest.self, body)
                == .invalidField(
                    "idempotencyKey", "idempotencyKey must be a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7"))
        let good = #"{"event":"ended","idempotencyKey":"7C9E6679-7425-40DE-944B-E07FC1F90AE7"}"#
        #expect(failure(TripEventRequest.self, good) == nil)
    }

    @Test func anEndedPathIsCheckedFixByFixAndHoldsAtMostABatch() {
        let key = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
        let fix = LocationPoint(lat: 43.74, lng: 7.42, accuracy: 5, heading: 0, speed: 10, t: Fixtures.receivedAt)
        #expect(throws: Never.self) { try TripEventRequest(event: .ended, idempotencyKey: key, path: [fix]).validate() }
        var bad = fix
        bad.speed = .nan
        #expect(throws: APIError.invalidField("path[1].speed", "speed must be a finite number")) {
            try TripEventRequest(event: .ended, idempotencyKey: key, path: [fix, bad]).validate()
        }
        #expect(throws: APIError.invalidField("path", "path must hold at most 1000 fixes")) {
            try TripEventRequest(event: .ended, idempotencyKey: key, path: Array(repeating: fix, count: 1_001))
                .validate()
        }
        #expect(throws: APIError.invalidField("path", "path goes only with the ended event")) {
            try TripEventRequest(event: .started, idempotencyKey: key, path: [fix]).validate()
        }
    }

    @Test func unknownTripEventNamesTheAcceptedValues() {
        let body = #"{"event":"flew","idempotencyKey":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}"#
        #expect(
            failure(TripEventRequest.self, body)
                == .invalidField("event", #"event is invalid: expected one of arrived, started, ended, got "flew""#))
    }

    @Test func cancelBodyMayBeEmpty() throws {
        #expect(try WireDecoder.decodeRequest(CancelRequest.self, from: Data()) == CancelRequest())
        #expect(try WireDecoder.decodeRequest(CancelRequest.self, from: Data(" \n".utf8)) == CancelRequest())
        #expect(try WireDecoder.decodeRequest(CancelRequest.self, from: Data("{}".utf8)) == CancelRequest())
        let withReason = try WireDecoder.decodeRequest(CancelRequest.self, from: Data(#"{"reason":"late"}"#.utf8))
        #expect(withReason == CancelRequest(reason: "late"))
    }

    @Test func oversizedBodiesAre413() {
        let error = failure(CancelRequest.self, "{\"reason\":\"" + String(repeating: "x", count: 1 << 20) + "\"}")
        #expect(error?.code == .payloadTooLarge)
        #expect(error?.httpStatus == 413)
    }

    @Test func driverStatusNeedsOnline() throws {
        #expect(failure(DriverStatusRequest.self, #"{"degraded":true}"#) == .missingField("online"))
        #expect(
            failure(DriverStatusRequest.self, #"{"online":"yes"}"#)
                == .invalidField("online", "online must be true or false"))
        let status = try WireDecoder.decodeRequest(DriverStatusRequest.self, from: Data(#"{"online":false}"#.utf8))
        #expect(status == DriverStatusRequest(online: false, degraded: nil))
    }
}

@Suite struct LocationBatchValidation {
    private func point(_ fields: String = "") -> String {
        var base: [String: String] = [
            "lat": "43.7", "lng": "7.4", "accuracy": "5", "heading": "90", "speed": "8",
            "t": "\"2026-12-02T13:54:23.123Z\"",
        ]
        for pair in fields.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { base[String(parts[0])] = String(parts[1]) } else { base[String(parts[0])] = nil }
        }
        return "{" + base.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    @Test(arguments: [
        ("accuracy=-1", "points[1].accuracy", "accuracy must be between 0 and 100000"),
        ("lat=-90.5", "points[1].lat", "lat must be between -90 and 90"),
        ("heading=360", "points[1].heading", "heading must be below 360 (negative means unknown)"),
        ("speed=5000", "points[1].speed", "speed must be at most 1000 m/s"),
        ("speed=\"fast\"", "points[1].speed", "speed must be a number"),
        ("t", "points[1].t", "points[1].t is required"),
        (
            "t=\"2026-12-02 13:54:23\"", "points[1].t",
            #"t is invalid: "2026-12-02 13:54:23" is not an RFC 3339 date-time like 2026-12-02T13:54:23.123Z: "#
                + "expected \"T\" at offset 10"
        ),
    ])
    func pointErrorsNameTheIndexAndField(change: String, field: String, message: String) {
        let body = #"{"seq":3,"points":[\#(point()),\#(point(change))]}"#
        let expectedCode: APIError.Code = message.hasSuffix("is required") ? .missingField : .invalidField
        #expect(failure(LocationBatch.self, body) == APIError(code: expectedCode, message: message, field: field))
    }

    @Test func unknownHeadingAndSpeedAreAccepted() throws {
        let body = #"{"seq":3,"points":[\#(point("heading=-1,speed=-1"))]}"#
        let batch = try WireDecoder.decodeRequest(LocationBatch.self, from: Data(body.utf8))
        #expect(batch.points.first?.heading == -1)
        #expect(batch.points.first?.speed == -1)
        #expect(batch.backlog == false)
    }

    @Test func aKeepAliveWithoutAFixHoldsExactlyOneLivePoint() throws {
        let one = #"{"seq":3,"noFix":true,"points":[\#(point(""))]}"#
        #expect(try WireDecoder.decodeRequest(LocationBatch.self, from: Data(one.utf8)).noFix)
        #expect(
            failure(LocationBatch.self, #"{"seq":3,"noFix":true,"points":[\#(point("")),\#(point(""))]}"#)
                == .invalidField("points", "a batch without a fix holds exactly one point (the last fix)"))
        #expect(
            failure(LocationBatch.self, #"{"seq":3,"noFix":true,"backlog":true,"points":[\#(point(""))]}"#)
                == .invalidField("noFix", "a batch without a fix cannot be backlog"))
    }

    @Test func emptyAndOverfullBatchesAreRefused() {
        #expect(
            failure(LocationBatch.self, #"{"seq":3,"points":[]}"#)
                == .invalidField("points", "points must not be empty"))
        let many = Array(repeating: point(), count: ProtocolLimits.maxPointsPerBatch + 1).joined(separator: ",")
        #expect(
            failure(LocationBatch.self, #"{"seq":3,"points":[\#(many)]}"#)
                == .invalidField("points", "points must hold at most 1000 fixes per batch"))
        #expect(
            failure(LocationBatch.self, #"{"seq":-1,"points":[\#(point())]}"#)
                == .invalidField("seq", "seq must not be negative"))
    }
}
