import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import Synchronization
import Testing

// The push notifier is the server half of the rider's background experience; its tests live with the
// rider's because the rider issue owns it.
@Suite("Push notifications for the rider in the background")
struct PushNotifierTests {
    static let now = Date(timeIntervalSince1970: 1_796_130_000)

    static func record(_ state: TripState, version: Int, fare: Money? = nil, eta: Int? = nil) -> TripRecord {
        TripRecord(trip: Fixtures.trip(state, version: version, eta: eta, fare: fare), riderID: "rider-1")
    }

    @Test func onlyTheFiveMomentsThatMatterArePushed() {
        #expect(PushEvent.event(from: .searching, to: .driverAssigned) == .driverAssigned)
        #expect(PushEvent.event(from: .driverAssigned, to: .driverArrived) == .driverArrived)
        #expect(PushEvent.event(from: .driverArrived, to: .onTrip) == .tripStarted)
        #expect(PushEvent.event(from: .onTrip, to: .completed) == .tripCompleted)
        #expect(PushEvent.event(from: .driverAssigned, to: .cancelled) == .tripCancelled)
        #expect(PushEvent.event(from: .driverAssigned, to: .driverAssigned) == nil)
        #expect(PushEvent.event(from: .driverAssigned, to: .searching) == nil)
        #expect(PushEvent.event(from: nil, to: .searching) == nil)
    }

    @Test func theAlertIsApplesDocumentedJSON() throws {
        let payload = ApplePushPayload.alertPayload(
            for: .driverArrived, trip: Self.record(.driverArrived, version: 3).trip)
        #expect(
            try HailJSON.encodeString(payload)
                == #"{"aps":{"alert":{"body":"Look for Toyota Prius HL-204-AB","title":"Asha is here"},"#
                + #""interruption-level":"time-sensitive","sound":"default","thread-id":"trip-1"},"#
                + #""event":"driverArrived","tripID":"trip-1"}"#)
    }

    @Test func theLiveActivityUpdatesThenEndsWithTheFare() throws {
        let assigned = ApplePushPayload.liveActivityPayload(
            for: .driverAssigned, trip: Self.record(.driverAssigned, version: 2, eta: 240).trip, now: Self.now)
        #expect(
            try HailJSON.encodeString(assigned)
                == #"{"aps":{"content-state":{"carModel":"Toyota Prius","driverName":"Asha","etaSeconds":240,"#
                + #""plate":"HL-204-AB","state":"driverAssigned"},"event":"update","stale-date":1796130120,"#
                + #""timestamp":1796130000}}"#)
        let completed = ApplePushPayload.liveActivityPayload(
            for: .tripCompleted,
            trip: Self.record(.completed, version: 6, fare: Money(amountMinor: 1850, currency: "EUR")).trip,
            now: Self.now)
        #expect(completed.aps.event == "end")
        #expect(completed.aps.dismissalDate == 1_796_130_900)
        #expect(completed.aps.staleDate == nil)
        #expect(completed.aps.contentState.fare == Money(amountMinor: 1850, currency: "EUR"))
        #expect(
            completed.aps.alert == PushAlert(title: "You have arrived", body: "Thanks for riding. Fare: 18.50 EUR."))
    }

    @Test func aForgedOrOldSignatureIsRefused() {
        let body = Array(#"{"event":"tripStarted"}"#.utf8)
        let secret = Array("s3cret".utf8)
        let header = WebhookPushSender.signature(body: body, secret: secret, time: Self.now)
        #expect(WebhookPushSender.verify(header: header, body: body, secret: secret, now: Self.now))
        #expect(!WebhookPushSender.verify(header: header, body: body + [32], secret: secret, now: Self.now))
        #expect(!WebhookPushSender.verify(header: header, body: body, secret: Array("other".utf8), now: Self.now))
        #expect(
            !WebhookPushSender.verify(header: header, body: body, secret: secret, now: Self.now.addingTimeInterval(301))
        )
    }

    @Test func aRideIsPushedInOrderThroughASignedWebhookAndAFailedPostIsRetried() async throws {
        let secret = Array("webhook-secret".utf8)
        let received = Mailbox<(signature: String, body: [UInt8])>()
        let answers = Mutex([503])
        var configuration = NetServerConfiguration()
        configuration.customHeaderNames.append(WebhookPushSender.signatureHeader)
        let receiver = NetServer(configuration: configuration) { request in
            await received.put((request.headers[WebhookPushSender.signatureHeader] ?? "", request.body))
            let status = answers.withLock { $0.isEmpty ? 200 : $0.removeFirst() }
            return HTTPResponse(status: status)
        }
        let port = try receiver.start()
        let clock = ManualClock()
        let notifier = PushNotifier(
            sender: WebhookPushSender(
                url: try #require(URL(string: "http://127.0.0.1:\(port)/push")), secret: secret, now: { Date() }),
            now: { Self.now }, clock: clock, backoff: Backoff(jitter: .none))

        let steps: [(TripState, TripState, Int)] = [
            (.searching, .driverAssigned, 2), (.driverAssigned, .driverAssigned, 3),
            (.driverAssigned, .driverArrived, 4), (.driverArrived, .onTrip, 5), (.onTrip, .completed, 6),
        ]
        for (previous, next, version) in steps {
            await notifier.tripChanged(
                Self.record(next, version: version), previous: Self.record(previous, version: version - 1))
        }
        // The first post is answered 503; the retry waits 1 s on the manual clock.
        _ = try await received.next(within: 10, "first post")
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        var events: [String] = []
        for _ in 0..<4 {
            let post = try await received.next(within: 10, "post")
            #expect(WebhookPushSender.verify(header: post.signature, body: post.body, secret: secret, now: Date()))
            let delivery = try HailJSON.decode(PushDelivery.self, from: Data(post.body))
            #expect(delivery.riderID == "rider-1")
            #expect(delivery.alert.pushType == "alert")
            #expect(delivery.liveActivity.topicSuffix == ".push-type.liveactivity")
            events.append("\(delivery.event.rawValue)@\(delivery.version)")
        }
        await notifier.idle()
        #expect(events == ["driverAssigned@2", "driverArrived@4", "tripStarted@5", "tripCompleted@6"])
        #expect(await notifier.counts == PushNotifier.Counts(delivered: 4, failed: 0))
        await receiver.shutdown()
    }

    @Test("each push's outcome is counted in hail_push_deliveries_total, which the failure alert watches")
    func outcomesAreCounted() async throws {
        struct Refusing: PushSender {
            struct Refused: Error {}
            func send(_ delivery: PushDelivery) async throws { throw Refused() }
        }
        let metrics = ServerMetrics()
        let notifier = PushNotifier(sender: Refusing(), now: { Self.now }, clock: ManualClock(), attempts: 1)
        await notifier.reportDeliveries(to: metrics)
        await notifier.tripChanged(
            Self.record(.driverArrived, version: 3), previous: Self.record(.driverAssigned, version: 2))
        await notifier.idle()
        #expect(metrics.registry.value("hail_push_deliveries_total", labels: ["result": "failed"]) == 1)
        #expect(metrics.registry.value("hail_push_deliveries_total", labels: ["result": "delivered"]) == 0)
    }
}
