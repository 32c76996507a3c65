import Foundation
import HailCore
import HailProtocol
import Testing

@Suite struct JSONBodies {
    @Test func tripHasExactSortedBytes() throws {
        #expect(try Fixtures.json(Fixtures.trip) == Fixtures.tripJSON)
        #expect(try Fixtures.json(Fixtures.searchingTrip) == Fixtures.searchingTripJSON)
    }

    @Test func tripDecodesBackToTheSameValue() throws {
        let decoded = try WireDecoder.decode(Trip.self, from: Data(Fixtures.tripJSON.utf8))
        #expect(decoded == Fixtures.trip)
    }

    @Test func estimateListHasExactBytes() throws {
        let estimates = [
            Estimate(productID: .economy, fare: Money(amountMinor: 1850, currency: "EUR"), etaSeconds: 180),
            Estimate(productID: .xl, fare: Money(amountMinor: 2600, currency: "EUR"), etaSeconds: 420),
        ]
        #expect(
            try Fixtures.json(estimates)
                == #"[{"etaSeconds":180,"fare":{"amountMinor":1850,"currency":"EUR"},"productID":"economy"},"#
                + #"{"etaSeconds":420,"fare":{"amountMinor":2600,"currency":"EUR"},"productID":"xl"}]"#)
    }

    @Test func errorBodyHasExactBytesWithAndWithoutField() {
        let withField = APIError.invalidField("pickup.lat", "lat must be between -90 and 90")
        #expect(
            String(decoding: withField.jsonBody, as: UTF8.self)
                == #"{"error":{"code":"invalid_field","field":"pickup.lat","message":"lat must be between -90 and 90"}}"#
        )
        let withoutField = APIError.notFound("no such trip")
        #expect(
            String(decoding: withoutField.jsonBody, as: UTF8.self)
                == #"{"error":{"code":"not_found","message":"no such trip"}}"#)
    }

    @Test func aSecondActiveTripsErrorNamesTheTripThereAndReadsBack() throws {
        let error = APIError.activeTrip("trip_7", "you already have an active trip trip_7")
        let bytes = String(decoding: error.jsonBody, as: UTF8.self)
        #expect(
            bytes
                == #"{"error":{"activeTripID":"trip_7","code":"invalid_state","message":"you already have an active trip trip_7"}}"#
        )
        #expect(error.httpStatus == 409)
        let decoded = try WireDecoder.decode(ErrorBody.self, from: Data(bytes.utf8))
        #expect(decoded.error.activeTripID == "trip_7")
        #expect(decoded.error == error)
    }

    @Test func errorBodyDecodesAndKeepsUnknownCodes() throws {
        let body = #"{"error":{"code":"teapot","message":"short and stout"}}"#
        let decoded = try WireDecoder.decode(ErrorBody.self, from: Data(body.utf8))
        #expect(decoded.error == APIError(code: APIError.Code(rawValue: "teapot"), message: "short and stout"))
        #expect(decoded.error.httpStatus == 500)
    }

    @Test func requestBodiesHaveExactBytes() throws {
        #expect(
            try Fixtures.json(EstimateRequest(pickup: Fixtures.casino, dropoff: Fixtures.palace))
                == #"{"dropoff":{"lat":43.7314,"lng":7.4197},"pickup":{"lat":43.7396,"lng":7.4276}}"#)
        #expect(try Fixtures.json(DriverStatusRequest(online: true)) == #"{"online":true}"#)
        #expect(
            try Fixtures.json(DriverStatusRequest(online: true, degraded: true)) == #"{"degraded":true,"online":true}"#)
        #expect(try Fixtures.json(CancelRequest()) == "{}")
        #expect(
            try Fixtures.json(
                TripEventRequest(event: .arrived, idempotencyKey: "7c9e6679-7425-40de-944b-e07fc1f90ae7"))
                == #"{"event":"arrived","idempotencyKey":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}"#)
        #expect(try Fixtures.json(LocationAck(seq: 42)) == #"{"seq":42}"#)
    }

    @Test func documentedExamplesHaveExactBytes() throws {
        #expect(
            try Fixtures.json(TripRequest(pickup: Fixtures.casino, dropoff: Fixtures.palace, productID: .xl))
                == #"{"dropoff":{"lat":43.7314,"lng":7.4197},"pickup":{"lat":43.7396,"lng":7.4276},"productID":"xl"}"#)
        #expect(try Fixtures.json(CancelRequest(reason: "late")) == #"{"reason":"late"}"#)
        let nearby = [Coordinate(lat: 43.7312, lng: 7.4211), Coordinate(lat: 43.7335, lng: 7.4189)]
        #expect(try Fixtures.json(nearby) == #"[{"lat":43.7312,"lng":7.4211},{"lat":43.7335,"lng":7.4189}]"#)
    }

    @Test func shareLinkHasExactBytes() throws {
        let link = ShareLinkResponse(
            url: URL(string: "https://hail.example/share/s3cr3t")!, token: "s3cr3t",
            expiresAt: Date(timeIntervalSince1970: 1_796_223_263.5))
        #expect(
            try Fixtures.json(link)
                == #"{"expiresAt":"2026-12-02T14:54:23.500Z","token":"s3cr3t","url":"https://hail.example/share/s3cr3t"}"#
        )
    }

    @Test func locationPointUsesWireNames() throws {
        let batch = LocationBatch(
            seq: 7,
            points: [
                LocationPoint(lat: 43.7396, lng: 7.4276, accuracy: 5, heading: -1, speed: 8.5, t: Fixtures.receivedAt)
            ], backlog: true)
        #expect(
            try Fixtures.json(batch)
                == #"{"backlog":true,"points":[{"accuracy":5,"heading":-1,"lat":43.7396,"lng":7.4276,"speed":8.5,"#
                + #""t":"2026-12-02T13:54:23.123Z"}],"seq":7}"#)
    }

    @Test func unsortedEncoderStillWritesWireDates() throws {
        // Without sorting, key order is unspecified on Linux; the value and date format are not.
        let bytes = try HailJSON.encode(Fixtures.trip, sortedKeys: false)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""receivedAt":"2026-12-02T13:54:23.123Z""#))
        #expect(try WireDecoder.decode(Trip.self, from: bytes) == Fixtures.trip)
    }

    @Test func nonFiniteNumbersAreRefusedWhenEncoding() {
        #expect(throws: EncodingError.self) { try HailJSON.encode(Coordinate(lat: .nan, lng: 0)) }
        #expect(throws: EncodingError.self) { try HailJSON.encode(Coordinate(lat: 0, lng: .infinity)) }
    }

    @Test func datesOutsideTheWireRangeAreRefusedWhenEncoding() {
        let far = DriverLocation(
            coordinate: Fixtures.casino, heading: 0, seq: 1, receivedAt: Date(timeIntervalSince1970: 1e13))
        #expect(throws: EncodingError.self) { try HailJSON.encode(far) }
    }

    @Test(arguments: APIError.Code.known)
    func everyCodeHasItsStatus(code: APIError.Code) {
        let expected: [String: Int] = [
            "invalid_json": 400, "invalid_body": 400, "invalid_field": 400, "missing_field": 400,
            "unauthorized": 401, "forbidden": 403, "not_found": 404, "method_not_allowed": 405,
            "invalid_state": 409, "payload_too_large": 413, "idempotency_key_reused": 422, "upgrade_required": 426,
            "rate_limited": 429,
            "internal": 500, "not_implemented": 501, "unavailable": 503,
        ]
        #expect(code.httpStatus == expected[code.rawValue])
    }
}
