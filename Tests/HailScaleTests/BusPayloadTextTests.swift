import Foundation
import HailServer
import Testing

@testable import HailScale

@Suite("A bus message on a Redis channel")
struct BusPayloadTextTests {
    @Test func aPositionFrameTravelsAsItIsBehindItsHeader() throws {
        let frame = #"{"type":"driverMoved","location":{"seq":7,"lat":43.74,"lng":7.428}}"#
        let message = BusMessage(
            kind: .disposable, text: frame, publishedAt: Date(timeIntervalSince1970: 1_796_000_000.25))
        let payload = BusPayloadText.payload(message)
        #expect(payload == "b1|d|0|1796000000.25|" + frame)
        #expect(BusPayloadText.message(from: payload) == message)
    }

    @Test func aFinalTripChangeWithoutATimeAndWithBarsInItsTextComesBackExactly() throws {
        let message = BusMessage(kind: .essential, text: #"{"note":"a|b||c"}"#, endsStream: true)
        let payload = BusPayloadText.payload(message)
        #expect(payload == #"b1|e|1||{"note":"a|b||c"}"#)
        #expect(BusPayloadText.message(from: payload) == message)
    }

    @Test func aPayloadAnOlderNodePublishedInJSONStillReads() throws {
        let payload = #"{"kind":"essential","text":"{\"type\":\"tripUpdated\"}","endsStream":false,"publishedAt":12.5}"#
        #expect(
            BusPayloadText.message(from: payload)
                == BusMessage(
                    kind: .essential, text: #"{"type":"tripUpdated"}"#, publishedAt: Date(timeIntervalSince1970: 12.5)))
    }

    @Test func somethingElseOnTheChannelIsNotTakenForAMessage() {
        for foreign in ["hello", "b1|x|0||{}", "b1|e|2||{}", "b1|e|0|soon|{}", "b1|e|0", "{\"kind\":\"other\"}"] {
            #expect(BusPayloadText.message(from: foreign) == nil, "\(foreign)")
        }
    }
}
