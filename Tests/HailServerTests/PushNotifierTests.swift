import Foundation
import HailCore
import HailNet
import HailProtocol
import HailServer
import HailTesting
import HailTime
import Synchronization
import Testing

// The push notifier is the server half of the rider's background experience (the rider issue owns it).
@Suite("Push notifications for the rider in the background")
struct PushNotifierTests {
    static let now = Date(timeIntervalSince1970: 1_796_130_000)

    static func record(_ state: TripState, version: Int, fare: Money? = nil, eta: Int? = nil) -> TripRecord {
        let driver = Driver(
            id: "driver-1", name: "Asha", carModel: "Toyota Prius", plate: "HL-204-AB", rating: 4.9,
            photoURL: URL(string: "https://example.com/asha.jpg")!)
        let trip = Trip(
            id: "trip-1", state: state, pickup: Coordinate(lat: 43.7396, lng: 7.4276),
            dropoff: Coordinate(lat: 43.7314, lng: 7.4197), productID: .economy, version: version,
            driver: state.hasDriver ? driver : nil, etaSeconds: eta, fare: fare, driverLocation: nil)
        return TripRecord(trip: trip, riderID: "rider-1")
    }

    @Test func onlyTheMomentsThatMatterArePushedAndEveryEndEndsTheActivity() {
        #expect(PushEvent.event(from: .searching, to: .driverAssigned) == .driverAssigned)
        #expect(PushEvent.event(from: .driverAssigned, to: .driverArrived) == .driverArrived)
        #expect(PushEvent.event(from: .driverArrived, to: .onTrip) == .tripStarted)
        #expect(PushEvent.event(from: .onTrip, to: .completed) == .tripCompleted)
        #expect(PushEvent.event(from: .driverAssigned, to: .cancelled) == .tripCancelled)
        #expect(PushEvent.event(from: .driverAssigned, to: .driverAssigned) == nil)
        #expect(PushEvent.event(from: .driverAssigned, to: .searching) == nil)
        #expect(PushEvent.event(from: nil, to: .searching) == nil)
        #expect(PushEvent.event(from: .searching, to: .noDriversFound) == .noDriverFound)
        #expect(PushEvent.allCases.filter(\.endsActivity) == [.tripCompleted, .tripCancelled, .noDriverFound])
        #expect(
            ApplePushPayload.alert(for: .noDriverFound, trip: Self.record(.noDriversFound, version: 2).trip)
                == PushAlert(title: "No driver found", body: "Nobody could take your trip. Try again in a few minutes.")
        )
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

    @Test func eachPushCarriesItsAPNsHeaders() {
        let arrived = PushDelivery(
            event: .driverArrived, record: Self.record(.driverArrived, version: 3), now: Self.now)
        #expect(arrived.alert?.pushType == "alert")
        #expect(arrived.alert?.priority == 10)
        #expect(arrived.alert?.topicSuffix == "")
        #expect(arrived.alert?.expiration == 1_796_130_600)
        #expect(arrived.alert?.collapseID == "trip-1")
        #expect(arrived.liveActivity.pushType == "liveactivity")
        #expect(arrived.liveActivity.topicSuffix == ".push-type.liveactivity")
        // The arrival lights the screen: now. An ETA update may wait for the phone's next wake-up.
        #expect(arrived.liveActivity.priority == 10)
        #expect(arrived.liveActivity.expiration == 1_796_130_120)
        #expect(arrived.liveActivity.collapseID == nil)
        let started = PushDelivery(event: .tripStarted, record: Self.record(.onTrip, version: 4), now: Self.now)
        #expect(started.liveActivity.priority == 5)
        let completed = PushDelivery(event: .tripCompleted, record: Self.record(.completed, version: 5), now: Self.now)
        #expect(completed.liveActivity.priority == 10)
        #expect(completed.liveActivity.expiration == 1_796_130_900)
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
            time: Timeline(clock: clock, now: { Self.now }), backoff: Backoff(jitter: .none))

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
            #expect(delivery.alert?.pushType == "alert")
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
        let notifier = PushNotifier(
            sender: Refusing(), time: Timeline(clock: ManualClock(), now: { Self.now }), attempts: 1)
        await notifier.reportDeliveries(to: metrics)
        await notifier.tripChanged(
            Self.record(.driverArrived, version: 3), previous: Self.record(.driverAssigned, version: 2))
        await notifier.idle()
        #expect(metrics.registry.value("hail_push_deliveries_total", labels: ["result": "failed"]) == 1)
        #expect(metrics.registry.value("hail_push_deliveries_total", labels: ["result": "delivered"]) == 0)
    }

    @Test func aRunningTripsActivityIsRefreshedWhileItsDriverMovesAndOnlyThen() async throws {
        let clock = ManualClock()
        let time = Timeline(clock: clock, origin: Self.now)
        let sent = Mailbox<PushDelivery>()
        let notifier = PushNotifier(sender: RecordingSender(sent: sent), time: time, attempts: 1)
        let driverSeq = Mutex<Int64>(1)
        await notifier.enrich { trip in
            var live = trip
            live.driverLocation = DriverLocation(
                coordinate: Coordinate(lat: 43.74, lng: 7.428), heading: 0, seq: driverSeq.withLock { $0 },
                receivedAt: time.now())
            return live
        }
        let assigned = Self.record(.driverAssigned, version: 2, eta: 240)
        let stored = Mutex(assigned)
        await notifier.refreshActivities(
            every: .seconds(60), read: { _ in stored.withLock { $0 } })
        await notifier.tripChanged(assigned, previous: Self.record(.searching, version: 1))
        #expect(try await sent.next(within: 10, "assigned").event == .driverAssigned)

        // The driver moves: a minute on, the activity alone gets the live ETA, as a low-priority update.
        driverSeq.withLock { $0 = 5 }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(60))
        let refresh = try await sent.next(within: 10, "refresh")
        #expect(refresh.event == .etaRefreshed)
        #expect(refresh.alert == nil)
        #expect(refresh.liveActivity.priority == 5)
        #expect(refresh.liveActivity.payload.aps.event == "update")
        #expect(refresh.liveActivity.payload.aps.alert == nil)
        #expect(refresh.liveActivity.payload.aps.staleDate == 1_796_130_000 + 60 + 120)
        #expect(refresh.liveActivity.payload.aps.contentState.positionReceivedAt == 1_796_130_060)

        // The driver stops: the next minute sends nothing, so the lock screen passes its stale date.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(60))
        await clock.sleepers(atLeast: 1)
        #expect(await notifier.counts.delivered == 2)

        // A state change is pushed at once and follows on its own; the trip's end stops the refreshes.
        let arrived = Self.record(.driverArrived, version: 3)
        stored.withLock { $0 = arrived }
        await notifier.tripChanged(arrived, previous: assigned)
        #expect(try await sent.next(within: 10, "arrived").event == .driverArrived)
        let cancelled = Self.record(.cancelled, version: 4)
        stored.withLock { $0 = cancelled }
        await notifier.tripChanged(cancelled, previous: arrived)
        #expect(try await sent.next(within: 10, "cancelled").event == .tripCancelled)
        await notifier.idle()
        driverSeq.withLock { $0 = 9 }
        clock.advance(by: .seconds(300))
        await notifier.idle()
        #expect(await notifier.counts.delivered == 4)
    }
}

/// Hands every delivery to a mailbox.
struct RecordingSender: PushSender {
    let sent: Mailbox<PushDelivery>

    func send(_ delivery: PushDelivery) async throws { await sent.put(delivery) }
}
