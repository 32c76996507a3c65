import Foundation
import HailCore
import HailProtocol
import Testing

@Suite("The Live Activity's content-state")
struct TripActivityContentTests {
    static let driver = Driver(
        id: "driver-1", name: "Asha", carModel: "Toyota Prius", plate: "HL-204-AB", rating: 4.9,
        photoURL: URL(string: "https://example.invalid/asha.jpg")!)

    @Test func aTripOnTheWayIsPinnedByteForByte() throws {
        var trip = Trip(
            id: "trip-1", state: .driverAssigned, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: 2)
        trip.driver = Self.driver
        trip.etaSeconds = 240
        trip.driverLocation = DriverLocation(
            coordinate: Coordinate(lat: 43.74, lng: 7.428), heading: 90, seq: 7,
            receivedAt: Date(timeIntervalSince1970: 1_796_129_995.750))
        let content = TripActivityContent(trip: trip)
        #expect(
            try HailJSON.encodeString(content)
                == #"{"carModel":"Toyota Prius","driverName":"Asha","etaSeconds":240,"plate":"HL-204-AB","#
                + #""positionReceivedAt":1796129995,"state":"driverAssigned"}"#)
        #expect(try HailJSON.decode(TripActivityContent.self, from: HailJSON.encode(content)) == content)
    }

    @Test func aCompletedTripCarriesItsFareAndNothingUnknown() throws {
        let content = TripActivityContent(
            state: .completed, driverName: "Asha", fare: Money(amountMinor: 1850, currency: "EUR"))
        #expect(
            try HailJSON.encodeString(content)
                == #"{"driverName":"Asha","fare":{"amountMinor":1850,"currency":"EUR"},"state":"completed"}"#)
    }

    @Test func aPlainJSONDecoderReadsItAsActivityKitWould() throws {
        let json = #"{"state":"onTrip","etaSeconds":95,"positionReceivedAt":1796130000,"plate":"HL-204-AB"}"#
        let content = try JSONDecoder().decode(TripActivityContent.self, from: Data(json.utf8))
        #expect(
            content
                == TripActivityContent(
                    state: .onTrip, etaSeconds: 95, plate: "HL-204-AB", positionReceivedAt: 1_796_130_000))
        let again = try JSONDecoder().decode(TripActivityContent.self, from: JSONEncoder().encode(content))
        #expect(again == content)
    }
}
