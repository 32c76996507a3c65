import Foundation
import HailCore
import HailTesting
import Testing

struct LocationBatcherTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    /// A fix taken at `seconds`, `index` metres-ish east of a fixed place so that points differ.
    static func fix(_ index: Int, at seconds: TimeInterval) -> LocationPoint {
        LocationPoint(lat: 48.1, lng: 11.5 + Double(index) * 0.0001, accuracy: 5, heading: 90, speed: 8, t: at(seconds))
    }

    static func sends(_ actions: [LocationBatcher.Action]) -> [(batch: LocationBatch, via: LocationBatcher.Transport)] {
        actions.compactMap {
            if case .send(let batch, let via) = $0 { return (batch, via) }
            return nil
        }
    }

    static func online(hold: TimeInterval = 2, maxPoints: Int = 100, capacity: Int = 1000) -> LocationBatcher {
        var batcher = LocationBatcher(
            configuration: .init(holdInterval: hold, maxPointsPerBatch: maxPoints, bufferCapacity: capacity)
        )
        #expect(batcher.connectionUp(.stream, now: at(0)).isEmpty)
        // The first fix after connecting goes at once; consume that so tests start from steady state.
        _ = batcher.pointAccepted(fix(0, at: 0), now: at(0))
        batcher.ack(1)
        return batcher
    }

    @Test func theFirstFixAfterConnectingGoesAtOnce() {
        var batcher = LocationBatcher()
        _ = batcher.connectionUp(.stream, now: Self.at(0))
        let actions = batcher.pointAccepted(Self.fix(0, at: 0), now: Self.at(0))
        #expect(actions == [.send(LocationBatch(seq: 1, points: [Self.fix(0, at: 0)]), via: .stream)])
    }

    /// Issue 14: the timer went at exactly the hold, racing the fix taken then, and a fifth of the batches of a
    /// car on a trip left without their newest fix; with fixes coming it now waits half a second for it.
    @Test func aBatchGoesWhenItsOldestPointIsTheHoldOldAndHalfASecondMoreWhileFixesCome() {
        var batcher = Self.online(hold: 2)
        #expect(batcher.pointAccepted(Self.fix(1, at: 10), now: Self.at(10)) == [.scheduleTick(at: Self.at(12))])
        #expect(batcher.pointAccepted(Self.fix(2, at: 11), now: Self.at(11)).isEmpty)
        #expect(batcher.tick(now: Self.at(11.999)) == [.scheduleTick(at: Self.at(12.5))])
        #expect(batcher.tick(now: Self.at(12)) == [.scheduleTick(at: Self.at(12.5))])
        let actions = batcher.tick(now: Self.at(12.5))
        #expect(
            actions == [.send(LocationBatch(seq: 2, points: [Self.fix(1, at: 10), Self.fix(2, at: 11)]), via: .stream)]
        )
        #expect(batcher.tick(now: Self.at(13)).isEmpty)
    }

    @Test func aFixArrivingAtTheDeadlineSendsWithoutATick() {
        var batcher = Self.online(hold: 2)
        _ = batcher.pointAccepted(Self.fix(1, at: 10), now: Self.at(10))
        let sent = Self.sends(batcher.pointAccepted(Self.fix(2, at: 12), now: Self.at(12)))
        #expect(sent.map(\.batch.points.count) == [2])
    }

    @Test func aFixAFewMillisecondsEarlyForTheDeadlineStillSendsTheBatch() {
        var batcher = Self.online(hold: 2)
        _ = batcher.pointAccepted(Self.fix(1, at: 10), now: Self.at(10.02))
        _ = batcher.pointAccepted(Self.fix(2, at: 11), now: Self.at(11.01))
        // The third fix a second apart, handled 20 ms sooner after its time than the first: with it, not 0.5 s later.
        let sent = Self.sends(batcher.pointAccepted(Self.fix(3, at: 12), now: Self.at(12.0)))
        #expect(sent.map(\.batch.points.count) == [3])
        // A fix more than a quarter second short of the hold waits for the next.
        var early = Self.online(hold: 2)
        _ = early.pointAccepted(Self.fix(1, at: 10), now: Self.at(10))
        #expect(early.pointAccepted(Self.fix(2, at: 11.7), now: Self.at(11.7)).isEmpty)
    }

    @Test func aFullBatchGoesAtOnce() {
        var batcher = Self.online(hold: 100, maxPoints: 3)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        _ = batcher.pointAccepted(Self.fix(2, at: 2), now: Self.at(2))
        let sent = Self.sends(batcher.pointAccepted(Self.fix(3, at: 3), now: Self.at(3)))
        #expect(sent.map(\.batch.seq) == [2])
        #expect(sent.map(\.batch.points.count) == [3])
    }

    @Test func aTripStateChangeSendsWhatIsWaiting() {
        var batcher = Self.online(hold: 10)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        #expect(Self.sends(batcher.tripStateChanged(now: Self.at(2))).map(\.batch.points.count) == [1])
        // Nothing waiting: the next fix goes at once instead.
        #expect(batcher.tripStateChanged(now: Self.at(3)).isEmpty)
        #expect(Self.sends(batcher.pointAccepted(Self.fix(2, at: 4), now: Self.at(4))).count == 1)
        #expect(batcher.pointAccepted(Self.fix(3, at: 5), now: Self.at(5)) == [.scheduleTick(at: Self.at(15))])
    }

    @Test func policyChangesMoveTheDeadlineAndGoingOffSendsTheRest() {
        var batcher = Self.online(hold: 10)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        let onTrip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        #expect(batcher.policyChanged(onTrip, now: Self.at(2)) == [.scheduleTick(at: Self.at(3))])
        #expect(batcher.configuration.holdInterval == 2)
        _ = batcher.pointAccepted(Self.fix(2, at: 2.5), now: Self.at(2.5))
        #expect(Self.sends(batcher.policyChanged(.off, now: Self.at(2.6))).map(\.batch.points.count) == [2])
    }

    @Test func seqGrowsAndAnAckRetiresEveryBatchUpToIt() {
        var batcher = Self.online(hold: 0)
        var seqs: [Int64] = []
        for index in 1...4 {
            seqs += Self.sends(batcher.pointAccepted(Self.fix(index, at: Double(index)), now: Self.at(Double(index))))
                .map(\.batch.seq)
        }
        #expect(seqs == [2, 3, 4, 5])
        batcher.ack(3)
        #expect(batcher.inFlight.map(\.seq) == [4, 5])
        batcher.ack(2)
        #expect(batcher.inFlight.map(\.seq) == [4, 5])
        batcher.ack(5)
        #expect(batcher.inFlight.isEmpty)
    }

    @Test func offlineFixesAreBufferedWithinTheBoundKeepingTheFirstAndNewest() {
        var batcher = LocationBatcher(configuration: .init(holdInterval: 2, maxPointsPerBatch: 100, bufferCapacity: 10))
        for index in 0..<25 {
            #expect(batcher.pointAccepted(Self.fix(index, at: Double(index)), now: Self.at(Double(index))).isEmpty)
            #expect(batcher.buffer.count <= 10)
        }
        #expect(batcher.buffer.count == 10)
        #expect(batcher.buffer.first == Self.fix(0, at: 0))
        #expect(batcher.buffer.last == Self.fix(24, at: 24))
        #expect(batcher.thinnedCount == 15)
        // Thinning works on the older half: the newest fixes are all still there.
        #expect(Array(batcher.buffer.suffix(5)) == (20..<25).map { Self.fix($0, at: Double($0)) })
        #expect(batcher.buffer.map(\.t) == batcher.buffer.map(\.t).sorted())
    }

    @Test func thinningDropsStationaryRepeatsBeforeAnyRealCorner() {
        var batcher = LocationBatcher(configuration: .init(holdInterval: 2, maxPointsPerBatch: 100, bufferCapacity: 5))
        // An L-shaped drive whose corner waits at a red light: the repeats go, the corner stays.
        let corner = Coordinate(lat: 48.1, lng: 11.501)
        let path: [Coordinate] = [
            Coordinate(lat: 48.1, lng: 11.5), corner, corner, corner, Coordinate(lat: 48.101, lng: 11.501),
            Coordinate(lat: 48.102, lng: 11.501),
        ]
        for (index, coordinate) in path.enumerated() {
            let point = LocationPoint(
                lat: coordinate.lat,
                lng: coordinate.lng,
                accuracy: 5,
                heading: 0,
                speed: 0,
                t: Self.at(Double(index))
            )
            _ = batcher.pointAccepted(point, now: Self.at(Double(index)))
        }
        #expect(batcher.buffer.count == 5)
        #expect(batcher.buffer.map(\.coordinate).pathLength == path.pathLength)
        #expect(batcher.thinnedDistance == 0)
    }

    @Test func reconnectingSendsTheBacklogOldestFirstInBoundedBatches() {
        var batcher = Self.online(hold: 2, maxPoints: 4)
        batcher.connectionDown()
        for index in 1...10 {
            _ = batcher.pointAccepted(Self.fix(index, at: Double(index)), now: Self.at(Double(index)))
        }
        // Long after the last fix: nothing is fresh enough to move the rider's car.
        let sent = Self.sends(batcher.connectionUp(.http, now: Self.at(60)))
        #expect(sent.map(\.batch.seq) == [2, 3, 4])
        #expect(sent.map(\.batch.points.count) == [4, 4, 2])
        #expect(sent.allSatisfy { $0.batch.backlog && $0.via == .http })
        #expect(sent.flatMap(\.batch.points) == (1...10).map { Self.fix($0, at: Double($0)) })
        #expect(batcher.buffer.isEmpty)
        // The next live fix goes at once.
        let live = Self.sends(batcher.pointAccepted(Self.fix(11, at: 61), now: Self.at(61)))
        #expect(live.map(\.batch.seq) == [5])
        #expect(live.map(\.batch.backlog) == [false])
    }

    @Test func aFreshNewestFixGoesLiveAfterTheBacklog() {
        var batcher = Self.online(hold: 2, maxPoints: 4)
        batcher.connectionDown()
        for index in 1...5 {
            _ = batcher.pointAccepted(Self.fix(index, at: Double(index)), now: Self.at(Double(index)))
        }
        let sent = Self.sends(batcher.connectionUp(.stream, now: Self.at(6.5)))
        #expect(sent.map(\.batch.seq) == [2, 3])
        #expect(sent.map(\.batch.backlog) == [true, false])
        #expect(sent.last?.batch.points == [Self.fix(5, at: 5)])
        // The live fix used up the "send at once" turn; the next fix waits for its batch as usual.
        #expect(batcher.pointAccepted(Self.fix(6, at: 7), now: Self.at(7)) == [.scheduleTick(at: Self.at(9))])
    }

    @Test func unacknowledgedBatchesAndWaitingFixesAreResentAfterTheLinkDrops() {
        var batcher = Self.online(hold: 0)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        _ = batcher.pointAccepted(Self.fix(2, at: 2), now: Self.at(2))
        batcher.ack(2)
        batcher.connectionDown()
        #expect(batcher.inFlight.isEmpty)
        #expect(batcher.buffer == [Self.fix(2, at: 2)])
        let sent = Self.sends(batcher.connectionUp(.stream, now: Self.at(100)))
        #expect(sent.map(\.batch) == [LocationBatch(seq: 4, points: [Self.fix(2, at: 2)], backlog: true)])
    }

    @Test func switchingLinksResendsWhatTheOldLinkNeverAcknowledged() {
        var batcher = Self.online(hold: 0)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        let sent = Self.sends(batcher.connectionUp(.http, now: Self.at(1.5)))
        // With no hold, a fix that was already sent once is history when it goes again, never the live car.
        #expect(sent.map(\.batch) == [LocationBatch(seq: 3, points: [Self.fix(1, at: 1)], backlog: true)])
        #expect(sent.map(\.via) == [.http])
    }

    @Test func noSendsWhileDown() {
        var batcher = LocationBatcher()
        #expect(batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1)).isEmpty)
        #expect(batcher.tick(now: Self.at(100)).isEmpty)
        #expect(batcher.tripStateChanged(now: Self.at(100)).isEmpty)
        #expect(batcher.transport == nil)
    }

    @Test func snapshotRoundTripKeepsEveryUnacknowledgedPointAndTheSeq() throws {
        var batcher = Self.online(hold: 0)
        _ = batcher.pointAccepted(Self.fix(1, at: 1), now: Self.at(1))
        batcher.connectionDown()
        _ = batcher.pointAccepted(Self.fix(2, at: 2), now: Self.at(2))
        let data = try JSONEncoder().encode(batcher.snapshot)
        let snapshot = try JSONDecoder().decode(LocationBatcher.Snapshot.self, from: data)
        #expect(snapshot == LocationBatcher.Snapshot(nextSeq: 3, points: [Self.fix(1, at: 1), Self.fix(2, at: 2)]))

        // The app is killed and relaunched.
        var restored = LocationBatcher(restoring: snapshot, configuration: .init(holdInterval: 0))
        #expect(restored.transport == nil)
        let sent = Self.sends(restored.connectionUp(.stream, now: Self.at(50)))
        #expect(sent.map(\.batch) == [LocationBatch(seq: 3, points: snapshot.points, backlog: true)])
    }

    @Test func restoringABiggerSnapshotThinsItToTheBound() {
        let points = (0..<50).map { Self.fix($0, at: Double($0)) }
        let restored = LocationBatcher(
            restoring: .init(nextSeq: 9, points: points),
            configuration: .init(bufferCapacity: 20)
        )
        #expect(restored.buffer.count == 20)
        #expect(restored.nextSeq == 9)
        #expect(restored.buffer.first == points.first)
        #expect(restored.buffer.last == points.last)
    }

    /// A fix `metres` east of a fixed place, taken at `seconds`.
    static func east(_ metres: Double, at seconds: TimeInterval) -> LocationPoint {
        let origin = Coordinate(lat: 48.1, lng: 11.5)
        let degrees = metres / (111_195 * cos(origin.lat * .pi / 180))
        return LocationPoint(
            lat: origin.lat, lng: origin.lng + degrees, accuracy: 5, heading: 90, speed: 8, t: at(seconds))
    }

    /// When each batch went for a car driving east at `speed` m/s with a fix a second, from a batcher under `policy`.
    static func sendTimes(speed: Double, policy: LocationPolicy, seconds: Int = 12) -> [Double] {
        var batcher = LocationBatcher(configuration: .init(policy: policy))
        _ = batcher.connectionUp(.stream, now: at(0))
        var times: [Double] = []
        for second in 0...seconds {
            let now = Double(second)
            if !sends(batcher.pointAccepted(east(speed * now, at: now), now: at(now))).isEmpty { times.append(now) }
            batcher.ack(Int64(times.count))
        }
        return times
    }

    /// Issue 14: a rider watching a car in motion sees its pin lag in metres; the batch goes every 2 s while the car
    /// covers 22 m in them, every 3 s when it is slower, and a waiting driver's batches go by time alone.
    @Test func aWatchedCarInMotionSendsEveryTwoSecondsAndASlowOneEveryThree() {
        let trip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        #expect(LocationBatcher.Configuration(policy: trip).movingDistance == 22)
        // 23 m in 2 s: every 2 s, with two fixes each (the first fix after connecting goes at once).
        #expect(Self.sendTimes(speed: 11.5, policy: trip) == [0, 2, 4, 6, 8, 10, 12])
        // 21 m in 2 s: every 3 s, the hold's cadence.
        #expect(Self.sendTimes(speed: 10.5, policy: trip) == [0, 3, 6, 9, 12])
        // A car standing or crawling is no different.
        #expect(Self.sendTimes(speed: 0, policy: trip) == [0, 3, 6, 9, 12])
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        #expect(LocationBatcher.Configuration(policy: waiting).movingDistance == nil)
        #expect(Self.sendTimes(speed: 15, policy: waiting, seconds: 24) == [0, 11, 22])
    }

    @Test func goingFromATripToWaitingStopsTheEarlySends() {
        let trip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
        var batcher = LocationBatcher(configuration: .init(policy: trip))
        _ = batcher.connectionUp(.stream, now: Self.at(0))
        _ = batcher.pointAccepted(Self.east(0, at: 0), now: Self.at(0))
        _ = batcher.pointAccepted(Self.east(12, at: 1), now: Self.at(1))
        #expect(Self.sends(batcher.pointAccepted(Self.east(24, at: 2), now: Self.at(2))).map(\.batch.seq) == [2])
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        _ = batcher.policyChanged(waiting, now: Self.at(2))
        _ = batcher.pointAccepted(Self.east(36, at: 3), now: Self.at(3))
        #expect(batcher.pointAccepted(Self.east(60, at: 5), now: Self.at(5)).isEmpty)
    }

    @Test func configurationFollowsThePolicyAndRefusesNonsense() {
        let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)
        #expect(LocationBatcher.Configuration(policy: waiting).holdInterval == 10)
        #expect(LocationBatcher.Configuration(policy: .off).holdInterval == 0)
        let nonsense = LocationBatcher.Configuration(holdInterval: -3, maxPointsPerBatch: 0, bufferCapacity: 1)
        #expect(nonsense == LocationBatcher.Configuration(holdInterval: 0, maxPointsPerBatch: 1, bufferCapacity: 3))
    }

    // MARK: - The real Munich drive, in a tunnel from start to end

    @Test(
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/traces/barefoot-munich (the real Munich trace)"),
        arguments: [1000, 400, 200, 100]
    )
    func thinningKeepsTheDrivenDistanceOfTheMunichTrace(capacity: Int) throws {
        let trace = try #require(try BarefootTrace.munich(), "traces/barefoot-munich/x0001-001.json is missing")
        var filter = LocationFilter()
        let accepted = trace.filter { filter.evaluate($0) == .accept }
        let driven = accepted.map(\.coordinate).pathLength

        var batcher = LocationBatcher(
            configuration: .init(holdInterval: 2, maxPointsPerBatch: 100, bufferCapacity: capacity)
        )
        for point in accepted { _ = batcher.pointAccepted(point, now: point.t) }
        #expect(batcher.buffer.count == min(capacity, accepted.count))

        let sent = Self.sends(batcher.connectionUp(.stream, now: accepted.last!.t.addingTimeInterval(600)))
        let delivered = sent.flatMap(\.batch.points)
        #expect(batcher.buffer.isEmpty)
        #expect(sent.allSatisfy { $0.batch.backlog && $0.batch.points.count <= 100 })
        #expect(delivered.first == accepted.first && delivered.last == accepted.last)

        let error = (driven - delivered.map(\.coordinate).pathLength) / driven
        print("Munich thinning to \(capacity): driven \(driven) m, kept \(delivered.count) points, error \(error)")
        #expect(error >= 0)
        #expect(error < 0.005, "the buffered path must stay within 0.5% of the driven distance")
    }
}
