import Foundation
import HailCore
import HailProtocol
import Testing

private let moved = DriverMoved(
    location: DriverLocation(
        coordinate: Coordinate(lat: 43.738, lng: 7.426), heading: 90, seq: 42, receivedAt: Fixtures.receivedAt),
    etaSeconds: 240,
    path: [Fixtures.casino, Coordinate(lat: 43.7388, lng: 7.4268), Coordinate(lat: 43.738, lng: 7.426)])

private let movedJSON =
    #"{"coordinate":{"lat":43.738,"lng":7.426},"etaSeconds":240,"heading":90,"path":"o{}iGouil@~C~C~C~C","#
    + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":42,"type":"driverMoved"}"#

private let fix = LocationPoint(
    lat: 43.7396, lng: 7.4276, accuracy: 4.5, heading: 212.5, speed: 8.3, t: Fixtures.receivedAt)

@Suite struct RiderFrames {
    @Test func helloHasExactBytes() throws {
        let frame = RiderServerFrame.hello(serverTime: Fixtures.receivedAt)
        #expect(try Fixtures.json(frame) == #"{"serverTime":"2026-12-02T13:54:23.123Z","type":"hello"}"#)
    }

    @Test func tripUpdatedHasExactBytes() throws {
        let frame = RiderServerFrame.tripUpdated(Fixtures.searchingTrip)
        #expect(try Fixtures.json(frame) == #"{"trip":\#(Fixtures.searchingTripJSON),"type":"tripUpdated"}"#)
    }

    @Test func driverMovedHasExactBytesAndItsPathDecodes() throws {
        #expect(try Fixtures.json(RiderServerFrame.driverMoved(moved)) == movedJSON)
        let path = try #require(try moved.pathCoordinates())
        #expect(path.count == 3)
        #expect(abs(path[1].lat - 43.7388) < 1e-9)
        #expect(abs(path[1].lng - 7.4268) < 1e-9)
    }

    @Test func driverMovedWithoutOptionalsLeavesThemOut() throws {
        let bare = DriverMoved(seq: 1, coordinate: Fixtures.casino, heading: 0, receivedAt: Fixtures.receivedAt)
        #expect(
            try Fixtures.json(RiderServerFrame.driverMoved(bare))
                == #"{"coordinate":{"lat":43.7396,"lng":7.4276},"heading":0,"#
                + #""receivedAt":"2026-12-02T13:54:23.123Z","seq":1,"type":"driverMoved"}"#)
        #expect(try bare.pathCoordinates() == nil)
    }

    @Test(arguments: [
        RiderServerFrame.hello(serverTime: Fixtures.receivedAt), .tripUpdated(Fixtures.trip), .driverMoved(moved),
    ])
    func framesRoundTrip(frame: RiderServerFrame) throws {
        let decoded = try WireDecoder.decode(RiderServerFrame.self, from: HailJSON.encode(frame))
        #expect(decoded == frame)
    }

    @Test func driverMovedBecomesATrackerLocation() {
        #expect(moved.location.seq == 42)
        #expect(moved.location.receivedAt == Fixtures.receivedAt)
        #expect(moved.location.coordinate == Coordinate(lat: 43.738, lng: 7.426))
    }

    @Test func unknownTypeIsNamed() {
        #expect(
            throws: APIError.invalidField(
                "type",
                #"type is invalid: unknown frame type "teleport"; expected one of hello, tripUpdated, driverMoved, tripAlert"#
            )
        ) {
            try WireDecoder.decode(RiderServerFrame.self, from: Data(#"{"type":"teleport","seq":1}"#.utf8))
        }
    }

    @Test func missingTypeIsAMissingField() {
        #expect(throws: APIError.missingField("type")) {
            try WireDecoder.decode(RiderServerFrame.self, from: Data(#"{"serverTime":"2026-12-02T13:54:23Z"}"#.utf8))
        }
    }

    @Test func frameWithWrongFieldNamesIt() {
        #expect(throws: APIError.missingField("receivedAt")) {
            try WireDecoder.decode(
                RiderServerFrame.self,
                from: Data(#"{"type":"driverMoved","seq":1,"coordinate":{"lat":1,"lng":2},"heading":0}"#.utf8))
        }
    }
}

@Suite struct DriverFrames {
    @Test func serverFramesHaveExactBytes() throws {
        #expect(
            try Fixtures.json(DriverServerFrame.hello(serverTime: Fixtures.receivedAt))
                == #"{"serverTime":"2026-12-02T13:54:23.123Z","type":"hello"}"#)
        #expect(try Fixtures.json(DriverServerFrame.ack(LocationAck(seq: 42))) == #"{"seq":42,"type":"ack"}"#)
        let offer = TripOffer(trip: Fixtures.searchingTrip, expiresAt: Date(timeIntervalSince1970: 1_796_219_678.123))
        #expect(
            try Fixtures.json(DriverServerFrame.offer(offer))
                == #"{"expiresAt":"2026-12-02T13:54:38.123Z","trip":\#(Fixtures.searchingTripJSON),"type":"offer"}"#)
        #expect(
            try Fixtures.json(DriverServerFrame.tripUpdated(Fixtures.searchingTrip))
                == #"{"trip":\#(Fixtures.searchingTripJSON),"type":"tripUpdated"}"#)
        #expect(
            try Fixtures.json(DriverServerFrame.offerWithdrawn(tripID: "trip_2"))
                == #"{"tripID":"trip_2","type":"offerWithdrawn"}"#)
    }

    @Test func anOfferWithdrawnWithoutItsTripIsRefusedNamingTheField() throws {
        #expect(throws: APIError.missingField("tripID")) {
            try WireDecoder.decode(DriverServerFrame.self, from: Data(#"{"type":"offerWithdrawn"}"#.utf8))
        }
    }

    @Test(arguments: [
        DriverServerFrame.hello(serverTime: Fixtures.receivedAt),
        .offer(TripOffer(trip: Fixtures.searchingTrip, expiresAt: Fixtures.receivedAt)),
        .tripUpdated(Fixtures.trip), .ack(LocationAck(seq: 9_007_199_254_740_993)), .offerWithdrawn(tripID: "t-1"),
    ])
    func serverFramesRoundTrip(frame: DriverServerFrame) throws {
        #expect(try WireDecoder.decode(DriverServerFrame.self, from: HailJSON.encode(frame)) == frame)
    }

    @Test func locationFrameHasExactBytes() throws {
        let live = DriverClientFrame.location(LocationBatch(seq: 42, points: [fix]))
        #expect(
            try Fixtures.json(live)
                == #"{"points":[{"accuracy":4.5,"heading":212.5,"lat":43.7396,"lng":7.4276,"speed":8.3,"#
                + #""t":"2026-12-02T13:54:23.123Z"}],"seq":42,"type":"location"}"#)
        let backlog = DriverClientFrame.location(LocationBatch(seq: 43, points: [fix], backlog: true))
        #expect(try Fixtures.json(backlog).hasPrefix(#"{"backlog":true,"points":"#))
    }

    @Test func locationFrameIsValidatedLikeTheHTTPBody() throws {
        let good = try HailJSON.encode(DriverClientFrame.location(LocationBatch(seq: 42, points: [fix])))
        #expect(
            try WireDecoder.decodeRequest(DriverClientFrame.self, from: good)
                == .location(LocationBatch(seq: 42, points: [fix])))
        let body =
            #"{"type":"location","seq":1,"points":[{"lat":91,"lng":0,"accuracy":1,"heading":0,"speed":0,"#
            + #""t":"2026-12-02T13:54:23Z"}]}"#
        #expect(throws: APIError.invalidField("points[0].lat", "lat must be between -90 and 90")) {
            try WireDecoder.decodeRequest(DriverClientFrame.self, from: Data(body.utf8))
        }
    }

    @Test func unknownClientTypeIsNamed() {
        #expect(
            throws: APIError.invalidField(
                "type", #"type is invalid: unknown frame type "trip_event"; expected one of location"#)
        ) {
            try WireDecoder.decodeRequest(DriverClientFrame.self, from: Data(#"{"type":"trip_event"}"#.utf8))
        }
    }
}

@Suite struct CloseCodes {
    @Test(arguments: [
        (WebSocketCloseCode.normal, 1000 as UInt16, "normal closure", false),
        (.goingAway, 1001, "going away", true),
        (.internalError, 1011, "internal error", true),
        (.moveNow, 4012, "draining: reconnect now", true),
        (.unauthorized, 4001, "unauthorized", false),
        (.forbidden, 4003, "forbidden", false),
        (.tripNotFound, 4004, "trip not found", false),
        (.invalidFrame, 4008, "invalid frame", true),
        (.slowConsumer, 4009, "slow consumer", true),
        (.superseded, 4010, "superseded by a newer connection", false),
        (.reconnectLater, 4013, "try again later", true),
        (.rateLimited, 4029, "rate limited", true),
    ])
    func tableIsAsDocumented(code: WebSocketCloseCode, raw: UInt16, reason: String, reconnect: Bool) {
        #expect(code.rawValue == raw)
        #expect(code.reason == reason)
        #expect(code.shouldReconnect == reconnect)
        #expect(code.reason.utf8.count <= 123)
    }

    @Test func everyCodeIsListedOnceAndAppCodesAreInTheAppRange() {
        #expect(Set(WebSocketCloseCode.all).count == WebSocketCloseCode.all.count)
        #expect(WebSocketCloseCode.all.count == 15)
        for code in WebSocketCloseCode.all where code.rawValue >= 4000 { #expect(code.rawValue < 5000) }
    }

    @Test func onlyServiceRestartAsksForAReconnectAtOnce() {
        let atOnce = WebSocketCloseCode.all.filter(\.reconnectsAtOnce)
        #expect(atOnce == [.moveNow])
        #expect(!WebSocketCloseCode(rawValue: 4500).reconnectsAtOnce)
    }

    @Test func storageTroubleIsAnOutageInEitherRangeAndNothingElseIs() {
        #expect(WebSocketCloseCode.all.filter(\.isOutage) == [.tryAgainLater, .reconnectLater])
        #expect(!WebSocketCloseCode(rawValue: 1002).isOutage)
    }

    @Test func unknownCodesStillDescribeThemselves() {
        let future = WebSocketCloseCode(rawValue: 4500)
        #expect(future.description == "4500 closed")
        #expect(future.shouldReconnect)
    }
}
