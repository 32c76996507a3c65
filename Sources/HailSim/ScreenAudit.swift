import Foundation
import HailCore

/// Judges a rider's screen, frame by frame, against where the driver's car truly was.
///
/// - freshness: how long ago the car truly stood where the pin's newest position puts it (the design's
///   "position age", the freshness budget as a metric), measured once the car's truth is known past the
///   fix's arrival; a stopped car within GPS noise of its pin counts as shown where it stands; frames
///   whose car was in a tunnel in the last 20 s are kept apart, since no phone has a fix there. This is
///   stricter than the age the rider's app can know (from the server's receipt): it includes how long
///   the fix waited on the phone and on the way up;
/// - rendered lag: the same for the glide's marker, which runs about one update interval behind on purpose;
/// - a backward move: the marker drawn on the car's path where the car was only before what an earlier
///   frame already showed (more than `backwardToleranceMeters` from anywhere it has been since);
/// - a jump: the marker moving more than 50 m from one frame to the next; a snap when that is the glide's
///   design (see `isSnap`);
/// - ETA changes: the estimated time of arrival moving, per trip: minutes on screen promising an arrival (now
///   plus the minutes, the last of them maybe partly gone) that the minutes shown since the last change ruled
///   out over the whole time they were on screen, with `etaSlackSeconds` for the rider's clock; a countdown
///   promises the same arrival and is none; a new leg (pickup, then dropoff) starts afresh, and a gap without
///   minutes (locating, a relaunch) does not, so the smoother's hold is judged across it; beside them, every
///   change of the minutes on screen, a countdown included;
/// - duplicated events: the screen entering a trip state it had already left, or the version going back;
/// - overclaims: the pin's words (live, updating, the "may be delayed" banner, an ETA) claiming more than
///   the freshness of the same frame allows, by the design's thresholds with the sampling period as the
///   tolerance, in every frame, tunnels included (no fix is exactly when a pin must say so); underclaims
///   beside them.
struct ScreenAudit: Sendable {
    /// What the audit measured.
    struct Measurements: Sendable, Hashable {
        var freshness = SecondsHistogram()
        /// Freshness in frames whose car lost its fix in a tunnel in the last 20 s (no system can know).
        var freshnessNearTunnels = SecondsHistogram()
        /// Tracking frames whose pin is still the position the server had before the trip was assigned.
        var framesShowingPositionFromBeforeAssignment = 0
        /// Freshness per trip state shown.
        var freshnessByState: [TripState: SecondsHistogram] = [:]
        var renderedLag = SecondsHistogram()
        var backwardMoves = 0
        var jumpsOver50m = 0
        /// Of those, the designed ones: the newest fix came more than the glide's snap gap (10 s) after
        /// the one shown before, or the screen was away (an app relaunched has nothing to glide from).
        var snaps = 0
        /// Frames whose drawn car is nowhere near where its car has been (more than 30 m off).
        var framesOffTruth = 0
        /// Frames whose pin is nowhere near where its car was before the server received it.
        var pinsOffTruth = 0
        /// Frames with the "may be delayed" banner.
        var delayedBannerFrames = 0
        /// Frames tracking a car.
        var trackedFrames = 0
        /// Per trip: changes of the minutes on screen, a countdown included.
        var minuteChangesPerTrip: [Int] = []
        /// Per trip that showed an ETA: changes of the arrival the minutes promise (a countdown is none).
        var etaChangesPerTrip: [Int] = []
        var duplicatedEvents = 0
        /// Frames whose words claimed more than the car's true position age allowed.
        var overclaims = ScreenOverclaims()
        /// Frames whose words claimed less than it allowed.
        var underclaims = ScreenUnderclaims()
        /// The first `keptOverclaims` overclaimed frames, each with what the audit knew of it.
        var overclaimedFrames: [OverclaimedFrame] = []
        /// The first `keptOverclaims` jumps that were not designed snaps.
        var unexplainedJumps: [UnexplainedJump] = []
        /// The first `keptOverclaims` frames off the truth.
        var offTruthFrames: [OffTruthFrame] = []
        /// Per trip: the highest version shown, the last state shown and the fare shown.
        var trips: [String: ShownTrip] = [:]

        mutating func merge(_ other: Measurements) {
            freshness.merge(other.freshness)
            freshnessNearTunnels.merge(other.freshnessNearTunnels)
            for (state, histogram) in other.freshnessByState {
                freshnessByState[state, default: .init()].merge(histogram)
            }
            renderedLag.merge(other.renderedLag)
            backwardMoves += other.backwardMoves
            jumpsOver50m += other.jumpsOver50m
            snaps += other.snaps
            framesOffTruth += other.framesOffTruth
            pinsOffTruth += other.pinsOffTruth
            delayedBannerFrames += other.delayedBannerFrames
            trackedFrames += other.trackedFrames
            framesShowingPositionFromBeforeAssignment += other.framesShowingPositionFromBeforeAssignment
            minuteChangesPerTrip += other.minuteChangesPerTrip
            etaChangesPerTrip += other.etaChangesPerTrip
            duplicatedEvents += other.duplicatedEvents
            overclaims.merge(other.overclaims)
            underclaims.merge(other.underclaims)
            overclaimedFrames = Array((overclaimedFrames + other.overclaimedFrames).prefix(ScreenAudit.keptOverclaims))
            unexplainedJumps = Array((unexplainedJumps + other.unexplainedJumps).prefix(ScreenAudit.keptOverclaims))
            offTruthFrames = Array((offTruthFrames + other.offTruthFrames).prefix(ScreenAudit.keptOverclaims))
            trips.merge(other.trips) { $1 }
        }
    }

    /// What one rider's screen showed of one trip.
    struct ShownTrip: Sendable, Hashable {
        var version: Int
        var state: TripState
        var fare: Money?
    }

    /// How many overclaimed frames, and how many unexplained jumps, the report lists.
    static let keptOverclaims = 50
    static let backwardToleranceMeters = 20.0
    static let onPathMeters = 8.0
    static let offTruthMeters = 30.0
    static let jumpMeters = 50.0
    /// How far a stopped car's last fix may lie from where it stands: the 5 m distance filter (the car's
    /// last few metres before stopping send no fix) plus about two sigma of GPS noise.
    static let parkedMeters = 12.0
    /// How far a fix may lie from where the car was when it was taken: about two sigma of the simulated phone's
    /// GPS noise (4 m each way). A car that came by the pin twice is placed at its latest pass within this.
    static let gpsNoiseMeters = 8.0
    /// How far a pin may lie from where the car was when the phone took the pin's fix and still show that fix:
    /// five sigma of the simulated phone's noise, with the server's move onto the road.
    static let fixNoiseMeters = 20.0
    /// The slack each rule about the pin's words allows: the sampling period, since a frame drawn just
    /// before a threshold is crossed is not seen again until the next one.
    static let claimToleranceSeconds = 0.2
    /// The slack of the ETA change rule: the rider's app counts its minutes on its estimate of the server's
    /// clock, which is off by up to half a round trip's asymmetry (a few hundred milliseconds on 3G).
    static let etaSlackSeconds = 1.0

    private(set) var measurements = Measurements()
    private var tripID: String?
    private var statesSeen: [TripState] = []
    private var markerTruthTime: Double?
    private var lastMarker: Coordinate?
    /// The previous tracking frame's time and pin, to tell a designed snap from a jump.
    private var lastFrameTime: Double?
    private var lastShown: DriverLocation?
    private var lastClockOffset: Double?
    private var lastEta: Int?
    private var trackedSince: Date?
    private var minuteChanges = 0
    /// The leg the arrival below belongs to, the arrival times every frame since the last ETA change allowed
    /// (seconds since 1970), and the ETA changes of this trip; nil before the trip shows minutes.
    private var etaLeg: TripState?
    private var promisedArrival: ClosedRange<Double>?
    private var etaChanges: Int?
    /// Pins shown, waiting for their car's truth to be known past their fix's arrival (`judgePins`).
    private var pendingPins: [PendingPin] = []

    /// A pin to measure: the frame's time, when its fix reached the server, where it is, and whose car.
    private struct PendingPin: Sendable {
        var time: Double
        var tripID: String
        var driverID: String
        var received: Double
        /// The batch the pin's fix came in.
        var seq: Int64
        var coordinate: Coordinate
        var state: TripState
        var trace: TruthTrace
        /// What the frame said about the pin.
        var words: Words
        /// The rider's clock estimate's error in the frame.
        var clockOffset: Double
    }

    /// What one frame said about its pin.
    struct Words: Sendable, Hashable {
        var pin: PinFreshness.Level?
        var delayedBanner: Bool
        var eta: Bool
    }

    /// Takes one frame; `truth` finds the trace of a driver's car.
    mutating func observe(_ frame: ScreenFrame, truth: (String) -> TruthTrace?) {
        if frame.tripID != tripID { startTrip(frame.tripID) }
        let previous = measurements.trips[frame.tripID]
        if let previous, frame.version < previous.version { measurements.duplicatedEvents += 1 }
        if statesSeen.last != frame.state {
            if statesSeen.contains(frame.state) { measurements.duplicatedEvents += 1 }
            statesSeen.append(frame.state)
        }
        measurements.trips[frame.tripID] = ShownTrip(
            version: max(frame.version, previous?.version ?? 0), state: frame.state, fare: frame.fare ?? previous?.fare)
        if let eta = frame.etaMinutes {
            judgeETA(eta, state: frame.state, at: frame.time.timeIntervalSince1970)
            if let lastEta, lastEta != eta { minuteChanges += 1 }
            lastEta = eta
        }
        let tracks = frame.state == .driverAssigned || frame.state == .driverArrived || frame.state == .onTrip
        guard tracks, let driverID = frame.driverID, let trace = truth(driverID) else { return }
        measurements.trackedFrames += 1
        let firstTracked = trackedSince ?? frame.time
        trackedSince = firstTracked
        if let shown = frame.shown, shown.receivedAt < firstTracked.addingTimeInterval(-1) {
            measurements.framesShowingPositionFromBeforeAssignment += 1
        }
        if frame.showsDelayedBanner { measurements.delayedBannerFrames += 1 }
        let now = frame.time.timeIntervalSince1970
        if let shown = frame.shown {
            pendingPins.append(
                PendingPin(
                    time: now, tripID: frame.tripID, driverID: driverID,
                    received: shown.receivedAt.timeIntervalSince1970,
                    seq: shown.seq, coordinate: shown.coordinate,
                    state: frame.state, trace: trace,
                    words: Words(pin: frame.pin, delayedBanner: frame.showsDelayedBanner, eta: frame.etaMinutes != nil),
                    clockOffset: frame.clockOffset),
            )
        }
        judgePins()
        let before = (time: lastFrameTime, shown: lastShown, clockOffset: lastClockOffset)
        lastFrameTime = now
        lastShown = frame.shown
        lastClockOffset = frame.clockOffset
        guard let marker = frame.marker else { return }
        if let lastMarker, lastMarker.distance(to: marker) > Self.jumpMeters {
            measurements.jumpsOver50m += 1
            if Self.isSnap(shown: frame.shown, after: before.shown, now: now, previousFrame: before.time) {
                measurements.snaps += 1
            } else if measurements.unexplainedJumps.count < Self.keptOverclaims {
                measurements.unexplainedJumps.append(
                    UnexplainedJump(
                        tripID: frame.tripID, driverID: driverID, at: now, state: frame.state.rawValue,
                        meters: lastMarker.distance(to: marker), sinceFrameSeconds: before.time.map { now - $0 },
                        seq: frame.shown?.seq, previousSeq: before.shown?.seq,
                        receiptGapSeconds: frame.shown.flatMap { shown in
                            before.shown.map { shown.receivedAt.timeIntervalSince($0.receivedAt) }
                        }, clockOffsetSeconds: frame.clockOffset, previousClockOffsetSeconds: before.clockOffset))
            }
        }
        lastMarker = marker
        judgeMarker(marker, now: now, trace: trace, frame: frame, driverID: driverID)
    }

    /// Measures the age of each waiting pin whose car's truth is known past the moment its fix arrived
    /// (all of them when `all`), oldest first.
    ///
    /// The car's truth is sampled once a second, so in the second after a fix arrives the trace ends
    /// before it: a pin a few metres ahead of the last sample (GPS noise, a car driving on) has no place on
    /// the trace yet but an earlier pass, if the car came this way before, and would be measured tens of
    /// seconds old. Waiting for the next sample (a second at most) measures what the frame showed.
    private mutating func judgePins(all: Bool = false) {
        while let pin = pendingPins.first {
            let arrived = min(pin.time, pin.received)
            guard all || (pin.trace.samples(in: arrived...arrived).last?.time ?? arrived) > arrived else { return }
            pendingPins.removeFirst()
            // The fix was taken before the server received it, and not long before.
            let window = (pin.received - 60)...arrived
            let now = pin.time
            guard
                let placed = pin.trace.lastTrue(
                    pin.coordinate, fixWindow: window, now: now, limit: Self.offTruthMeters, noise: Self.gpsNoiseMeters)
            else {
                measurements.pinsOffTruth += 1
                continue
            }
            let truthTime = Self.parked(pin.coordinate, since: placed, now: now, trace: pin.trace) ?? placed
            // The words are held to the age of the fix the pin shows when it shows where the car was as the phone
            // took it, within GPS noise: the noise is no age the app could know. A pin that is not where the car
            // was then (a position repeated after the car moved on) is held to when the car was last there.
            let fixTime = pin.trace.taken(batch: pin.seq, showing: pin.coordinate, within: Self.fixNoiseMeters)
            let claimTime = max(truthTime, fixTime ?? truthTime)
            let before = measurements.overclaims
            judge(pin.words, age: now - claimTime)
            for rule in Self.rulesBroken(before: before, after: measurements.overclaims)
            where measurements.overclaimedFrames.count < Self.keptOverclaims {
                measurements.overclaimedFrames.append(
                    OverclaimedFrame(
                        rule: rule, tripID: pin.tripID, driverID: pin.driverID, at: now, state: pin.state.rawValue,
                        seq: pin.seq, ageSeconds: now - claimTime, truthAgeSeconds: now - truthTime,
                        fixAgeSeconds: fixTime.map { now - $0 }, receivedAgeSeconds: now - pin.received,
                        clockOffsetSeconds: pin.clockOffset))
            }
            if pin.trace.wasBlind(in: (now - 20)...now) {
                measurements.freshnessNearTunnels.add(now - truthTime)
            } else {
                measurements.freshness.add(now - truthTime)
                measurements.freshnessByState[pin.state, default: .init()].add(now - truthTime)
            }
        }
    }

    /// The rules whose counts went up from `before` to `after`.
    private static func rulesBroken(before: ScreenOverclaims, after: ScreenOverclaims) -> [String] {
        [
            ("live", after.live > before.live), ("updating", after.updating > before.updating),
            ("noDelayedBanner", after.noDelayedBanner > before.noDelayedBanner),
            ("etaWhileLocating", after.etaWhileLocating > before.etaWhileLocating),
        ].filter(\.1).map(\.0)
    }

    /// Counts what `words` claimed beyond, or short of, a pin whose car truly stood there `age` seconds ago.
    private mutating func judge(_ words: Words, age: Double) {
        let tolerance = Self.claimToleranceSeconds
        let live = PinFreshness.liveBelow
        let locating = PinFreshness.locatingFrom
        let banner = PinFreshness.delayedBannerFrom
        if words.pin == .live, age > live + tolerance { measurements.overclaims.live += 1 }
        if words.pin == .updating, age > locating + tolerance { measurements.overclaims.updating += 1 }
        if !words.delayedBanner, age > banner + tolerance { measurements.overclaims.noDelayedBanner += 1 }
        if words.eta, age > locating + tolerance { measurements.overclaims.etaWhileLocating += 1 }
        if words.pin == .locating, age < live - tolerance { measurements.underclaims.locating += 1 }
        if words.pin == .updating, age < live - tolerance { measurements.underclaims.updating += 1 }
        if words.delayedBanner, age < banner - tolerance { measurements.underclaims.delayedBanner += 1 }
    }

    /// The time of the car's latest standing sample (within a metre of the one before) while it stayed within
    /// `parkedMeters` of `pin` from `since` on: the pin showed where the car stood, as exactly as a stopped phone
    /// can say, until then. Nil when the car has not stood there since.
    ///
    /// `TruthTrace.lastTrue` already follows a parked car, but only within a few metres, so a last fix that
    /// GPS noise or the distance filter left a little short of where the car then stopped would age for
    /// as long as it stands there (a driver waiting at the pickup), while one a little past it stays
    /// fresh. Noise is not age: both count as true while the car stands, and, once it drives off, the pin is as
    /// old as the moment it left (before, its age jumped from 0 to the time the car first passed the pin).
    static func parked(_ pin: Coordinate, since: Double, now: Double, trace: TruthTrace) -> Double? {
        let samples = trace.samples(in: since...now).filter { $0.time >= since && $0.time <= now }
        var standing: Double?
        for index in samples.indices {
            guard pin.distance(to: samples[index].coordinate) <= Self.parkedMeters else { break }
            if index > 0, samples[index - 1].coordinate.distance(to: samples[index].coordinate) < 1 {
                standing = samples[index].time
            }
        }
        return standing.map { max(since, $0) }
    }

    /// True when a jump to the frame showing `shown` at `now` is the glide's design: its fix came more
    /// than the snap gap after the one the frame before showed, or no frame was drawn for over a second
    /// before (the app was killed and relaunched, and has nothing to glide from).
    static func isSnap(shown: DriverLocation?, after previous: DriverLocation?, now: Double, previousFrame: Double?)
        -> Bool
    {
        if let previousFrame, now - previousFrame > 1 { return true }
        guard let shown, let previous, shown.seq != previous.seq else { return false }
        return shown.receivedAt.timeIntervalSince(previous.receivedAt) > Glide.Configuration().snapGap
    }

    /// Places the marker on the car's true path. A frame within `onPathMeters` of the path is placed;
    /// the latest place so far is the reference. A backward move: a placed frame that lies only behind
    /// the reference (more than two seconds of driving), nowhere near where the car has been since;
    /// counted once, after which the earlier place is the reference. A marker farther from the path
    /// (the glide cutting a corner straight) is not placed, and past 30 m it is off the truth.
    private mutating func judgeMarker(
        _ marker: Coordinate, now: Double, trace: TruthTrace, frame: ScreenFrame, driverID: String
    ) {
        let since = (markerTruthTime ?? now - 120) - 2
        let forward = trace.nearest(to: marker, in: since...now)
        if let forward, forward.distance <= Self.onPathMeters {
            markerTruthTime = max(markerTruthTime ?? forward.time, forward.time)
            measurements.renderedLag.add(now - forward.time)
            return
        }
        // A marker resting over two minutes on one place leaves no earlier window to search.
        if markerTruthTime != nil, since > now - 120, let earlier = trace.nearest(to: marker, in: (now - 120)...since),
            earlier.distance <= Self.onPathMeters, (forward?.distance ?? .infinity) > Self.backwardToleranceMeters
        {
            measurements.backwardMoves += 1
            markerTruthTime = earlier.time
            return
        }
        if let forward, forward.distance <= Self.offTruthMeters {
            measurements.renderedLag.add(now - forward.time)
            return
        }
        measurements.framesOffTruth += 1
        guard measurements.offTruthFrames.count < Self.keptOverclaims else { return }
        let pin = frame.shown?.coordinate
        measurements.offTruthFrames.append(
            OffTruthFrame(
                tripID: frame.tripID, driverID: driverID, at: now, state: frame.state.rawValue,
                metresFromPath: forward?.distance, metresFromPin: pin.map { marker.distance(to: $0) },
                pinMetresFromPath: pin.flatMap { trace.nearest(to: $0, in: since...now)?.distance },
                seq: frame.shown?.seq, pinAgeSeconds: frame.shown.map { now - $0.receivedAt.timeIntervalSince1970 }))
    }

    /// The arrival times `minutes` on screen at `time` allow: over m - 1 and up to m minutes on (the minutes are
    /// the time left, rounded up), "now" (0) anything up to `time`.
    static func arrivals(minutes: Int, at time: Double) -> ClosedRange<Double> {
        (minutes > 0 ? time + Double(minutes - 1) * 60 : -Double.infinity)...(time + Double(minutes) * 60)
    }

    /// Counts an ETA change when the minutes on screen promise an arrival the minutes since the last one ruled out.
    private mutating func judgeETA(_ minutes: Int, state: TripState, at time: Double) {
        let allowed = Self.arrivals(minutes: minutes, at: time)
        if etaLeg != state {
            etaLeg = state
            promisedArrival = allowed
            etaChanges = etaChanges ?? 0
            return
        }
        guard let promised = promisedArrival else {
            promisedArrival = allowed
            return
        }
        let slack = Self.etaSlackSeconds
        if allowed.lowerBound <= promised.upperBound + slack, allowed.upperBound >= promised.lowerBound - slack {
            let lower = max(promised.lowerBound, allowed.lowerBound)
            let upper = min(promised.upperBound, allowed.upperBound)
            // Overlapping only within the slack: the newest frame's allowance stands.
            promisedArrival = lower <= upper ? lower...upper : allowed
        } else {
            etaChanges = (etaChanges ?? 0) + 1
            promisedArrival = allowed
        }
    }

    private mutating func closeTrip() {
        guard tripID != nil else { return }
        measurements.minuteChangesPerTrip.append(minuteChanges)
        if let etaChanges { measurements.etaChangesPerTrip.append(etaChanges) }
    }

    private mutating func startTrip(_ id: String) {
        judgePins(all: true)
        closeTrip()
        tripID = id
        statesSeen = []
        markerTruthTime = nil
        lastMarker = nil
        lastFrameTime = nil
        lastShown = nil
        lastEta = nil
        trackedSince = nil
        minuteChanges = 0
        etaLeg = nil
        promisedArrival = nil
        etaChanges = nil
    }

    /// Closes the trip under way so its ETA changes count.
    mutating func finishTrip() {
        judgePins(all: true)
        closeTrip()
        tripID = nil
    }
}
