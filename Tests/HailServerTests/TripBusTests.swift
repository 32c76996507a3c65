import Foundation
import Testing

@testable import HailServer

@Suite("In-process bus")
struct TripBusTests {
    @Test func everySubscriberOfATopicGetsTheOneEncodedFrame() async throws {
        let bus = InProcessTripBus()
        var rider = await bus.subscribe(to: .trip("t")).messages.makeAsyncIterator()
        var viewer = await bus.subscribe(to: .trip("t")).messages.makeAsyncIterator()
        var other = await bus.subscribe(to: .trip("u")).messages.makeAsyncIterator()
        await bus.publish(BusMessage(kind: .disposable, text: #"{"type":"driverMoved","seq":7}"#), to: .trip("t"))
        await bus.publish(BusMessage(kind: .essential, text: #"{"type":"sentinel"}"#), to: .trip("u"))
        let first = try #require(await rider.next())
        let second = try #require(await viewer.next())
        #expect(first.text == #"{"type":"driverMoved","seq":7}"#)
        #expect(first.frame === second.frame)
        #expect(first.frame.shared === second.frame.shared)
        // Another trip's subscriber got only its own message.
        #expect(await other.next()?.text == #"{"type":"sentinel"}"#)
    }
}
