import Foundation
import HailCore
import HailDriver
import HailTime

/// One client's network on one profile, every fault drawn from its own seeded generator: when the dead
/// zones and stalls fall (laid out up front for the whole run), what each request and frame suffers.
actor NetworkConditions {
    /// What happens to one request.
    enum Fate: Sendable, Hashable {
        case delivered
        case requestLost
        case answerLost
    }

    nonisolated let profile: NetworkProfile
    nonisolated let timeline: Timeline
    private var random: SplitMix64
    /// Dead zones and stalls as seconds since 1970, in order.
    nonisolated let deadZones: [ClosedRange<Double>]
    nonisolated let stalls: [ClosedRange<Double>]
    /// True when faults may be pressed by hand (the demo's console): the injector stays in the way even
    /// on the perfect profile, and an open stream checks for a pressed dead zone twice a second.
    nonisolated let pressable: Bool
    /// Dead zones and stalls pressed by hand, as seconds since 1970.
    private var pressedDeadZones: [ClosedRange<Double>] = []
    private var pressedStalls: [ClosedRange<Double>] = []
    /// On a measured TCP link (`NetworkProfile.tcp`): whether the stream's connection loses packets, drawn at
    /// each handshake; whether the connection the requests go over does, nil until the next request opens one.
    private var streamLossy = false
    private var requestsLossy: Bool?
    /// On a measured TCP link: the stream's connection, counted up at each handshake and close, so a frame
    /// written on one connection is never delivered on the next; when the last frame written on it arrives,
    /// and the delivery of that frame, which the next one waits for (TCP keeps the order).
    private(set) var connection = 0
    private var upstreamDue = -Double.infinity
    private var upstreamTail: Task<Void, Never>?

    /// Conditions with the dead zones and stalls given, for tests that need them at known times.
    init(
        profile: NetworkProfile, timeline: Timeline, random: SplitMix64, deadZones: [ClosedRange<Double>],
        stalls: [ClosedRange<Double>], pressable: Bool = false
    ) {
        self.pressable = pressable
        self.profile = profile
        self.timeline = timeline
        self.random = random
        self.deadZones = deadZones
        self.stalls = stalls
    }

    init(
        profile: NetworkProfile, timeline: Timeline, random: SplitMix64, horizon: TimeInterval = 86_400,
        pressable: Bool = false
    ) {
        self.pressable = pressable
        var random = random
        self.profile = profile
        self.timeline = timeline
        let start = timeline.now().timeIntervalSince1970
        deadZones = Self.windows(
            perHour: profile.deadZonesPerHour, seconds: profile.deadZoneSeconds, from: start, horizon: horizon,
            random: &random)
        stalls = Self.windows(
            perHour: profile.stallsPerHour, seconds: profile.stallSeconds, from: start, horizon: horizon,
            random: &random)
        self.random = random
    }

    /// Windows of `seconds` starting as a Poisson process of `perHour`.
    static func windows(
        perHour: Double, seconds: Double, from start: Double, horizon: Double, random: inout SplitMix64
    ) -> [ClosedRange<Double>] {
        guard perHour > 0, seconds > 0 else { return [] }
        var windows: [ClosedRange<Double>] = []
        var time = start
        while true {
            time += -log(max(random.unit(), 1e-12)) * 3600 / perHour
            guard time < start + horizon else { return windows }
            windows.append(time...(time + seconds))
            time += seconds
        }
    }

    nonisolated var now: Double { timeline.now().timeIntervalSince1970 }

    /// The end of the dead zone the client is in at `time`, nil outside one.
    func deadZoneEnd(at time: Double) -> Double? {
        (pressedDeadZones + deadZones).first { $0.contains(time) }?.upperBound
    }

    /// The start of the next dead zone after `time`, nil when none is left.
    func nextDeadZone(after time: Double) -> Double? {
        (pressedDeadZones + deadZones).filter { $0.lowerBound > time }.map(\.lowerBound).min()
    }

    /// The end of the stall the socket is in at `time`, nil outside one.
    func stallEnd(at time: Double) -> Double? { (pressedStalls + stalls).first { $0.contains(time) }?.upperBound }

    /// A dead zone pressed by hand, from now for `seconds`; returns its end.
    func pressDeadZone(seconds: Double) -> Double {
        pressedDeadZones.append(now...(now + seconds))
        return now + seconds
    }

    /// A stall pressed by hand, from now for `seconds`; returns its end.
    func pressStall(seconds: Double) -> Double {
        pressedStalls.append(now...(now + seconds))
        return now + seconds
    }

    /// One one-way trip's latency, seconds.
    func oneWay() -> Double {
        if let tcp = profile.tcp { return tcp.roundTrip.draw(using: &random) / 2 }
        return max(0, profile.latency + (random.unit() * 2 - 1) * profile.jitter)
    }

    /// A retransmission wait on a measured TCP link when a packet on a connection that is `lossy` is lost, else 0.
    private func retransmission(_ tcp: TCPLinkModel, lossy: Bool, chance: Double) -> Double {
        guard lossy, random.unit() < chance else { return 0 }
        return tcp.retransmission.draw(using: &random)
    }

    /// Opening a stream's connection: the handshake's seconds. On a measured TCP link the new connection is
    /// lossy or not, and a lossy one's handshake may itself wait for a retransmission.
    func handshake() -> Double {
        guard let tcp = profile.tcp else { return oneWay() + oneWay() }
        // A new connection: nothing written on the old one is delivered on it, nor held up by it.
        connection += 1
        upstreamDue = -Double.infinity
        streamLossy = random.unit() < tcp.lossyConnectionShare
        let roundTrip = tcp.roundTrip.draw(using: &random)
        return roundTrip + retransmission(tcp, lossy: streamLossy, chance: tcp.handshakeLossOnLossyConnection)
    }

    /// The stream's connection closed by the app: frames written on it and not yet delivered are gone.
    func connectionClosed() {
        connection += 1
        upstreamDue = -Double.infinity
    }

    /// A request's two legs on a measured TCP link, seconds out and back, each with its retransmission wait.
    func requestLegs() -> (out: Double, back: Double) {
        guard let tcp = profile.tcp else { return (oneWay(), oneWay()) }
        let lossy = requestsLossy ?? (random.unit() < tcp.lossyConnectionShare)
        requestsLossy = lossy
        let out =
            tcp.roundTrip.draw(using: &random) / 2
            + retransmission(tcp, lossy: lossy, chance: tcp.lossOnLossyConnection)
        let back =
            tcp.roundTrip.draw(using: &random) / 2
            + retransmission(tcp, lossy: lossy, chance: tcp.lossOnLossyConnection)
        return (out, back)
    }

    /// A request timed out: the app's next one goes over a new connection.
    func requestTimedOut() { requestsLossy = nil }

    /// Writes a frame on the stream's connection of a measured TCP link: `deliver` runs when it arrives, after
    /// the frames written before it (a retransmission holds back every frame behind it), unless the connection
    /// has closed by then.
    func write(_ deliver: @escaping @Sendable () async -> Void) {
        let due = max(upstreamDue, now + frameDelay())
        upstreamDue = due
        let previous = upstreamTail
        let written = connection
        // Isolated to these conditions (it uses `self`), so the connection is read as of the delivery.
        upstreamTail = Task {
            await previous?.value
            do { try await self.sleep(until: due) } catch { return }
            guard self.connection == written else { return }
            await deliver()
        }
    }

    /// What happens to the next request.
    func fate() -> Fate {
        let draw = random.unit()
        if draw < profile.requestLoss { return .requestLost }
        if draw < profile.requestLoss + profile.answerLoss { return .answerLost }
        return .delivered
    }

    /// How long the next frame takes, including a retransmission now and then.
    func frameDelay() -> Double {
        if let tcp = profile.tcp {
            let oneWay = tcp.roundTrip.draw(using: &random) / 2
            return oneWay + retransmission(tcp, lossy: streamLossy, chance: tcp.lossOnLossyConnection)
        }
        return oneWay() + (random.unit() < profile.frameLoss ? profile.retransmission : 0)
    }

    /// Seconds until an open stream breaks by itself, nil when it never does.
    func timeToDrop() -> Double? {
        guard profile.dropsPerMinute > 0 else { return nil }
        return -log(max(random.unit(), 1e-12)) * 60 / profile.dropsPerMinute
    }

    /// True when the next frame is delivered twice.
    func duplicates() -> Bool { profile.frameDuplication > 0 && random.unit() < profile.frameDuplication }

    /// True when the next position frame is held behind the one after it.
    func reorders() -> Bool { profile.frameReordering > 0 && random.unit() < profile.frameReordering }

    /// Seconds until the next app kill, nil when the profile has none.
    func timeToKill() -> Double? {
        guard profile.appKillsPerHour > 0 else { return nil }
        return -log(max(random.unit(), 1e-12)) * 3600 / profile.appKillsPerHour
    }

    /// Sleeps until `time` on the timeline.
    nonisolated func sleep(until time: Double) async throws {
        try await timeline.sleep(until: Date(timeIntervalSince1970: time))
    }
}
