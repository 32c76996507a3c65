import Foundation
import HailCore

/// The simulator's measured report, as `hail sim` and `hail demo --headless` write it: what the riders'
/// screens showed judged against where the cars truly were, what happened to the trips, and what the
/// drivers' phones sent.
public struct SimulationReport: Sendable, Hashable, Codable {
    /// Two percentiles of a duration, in seconds; nil before any sample.
    public struct Percentiles: Sendable, Hashable, Codable {
        /// The median.
        public var p50: Double?
        /// The 99th percentile.
        public var p99: Double?
        /// The longest.
        public var max: Double?
        /// How many frames were measured.
        public var samples: Int
    }

    /// What happened to the riders' trips.
    public struct Trips: Sendable, Hashable, Codable {
        /// Trips the server created for a rider's request.
        public var requested: Int
        /// Trips that reached `completed`.
        public var completed: Int
        /// Trips cancelled.
        public var cancelled: Int
        /// Trips that found no driver.
        public var noDriversFound: Int
        /// Requests that got no trip.
        public var requestFailures: Int
        /// Completed trips whose rider saw a fare.
        public var completedWithFare: Int
        /// The mean fare of those, in minor units.
        public var meanFareMinor: Int?
        /// The fares' currency.
        public var currency: String?
        /// The mean pickup ETA first shown with a driver assigned, in seconds.
        public var meanPickupETASeconds: Double?
        /// The median pickup ETA first shown with a driver assigned, in seconds.
        public var medianPickupETASeconds: Int?
        /// The median time from a rider's tap to a driver assigned on their screen, seconds.
        public var medianSecondsToAssign: Double?
        /// Every fare a rider saw, in minor units, smallest first.
        public var faresMinor: [Int]
        /// Riders' trips still under way at the end, by the state on their screen.
        public var inProgress: [String: Int]
        /// Of those, riders waiting for their driver more than twice the pickup ETA first shown plus 30 s.
        public var pickupsOverdue: Int
    }

    /// The fares the server charged against what the cars truly drove between the start and the end of
    /// each trip, priced with the standard tariff: a fare built from a lost or broken trace shows here.
    public struct FaresAgainstTruth: Sendable, Hashable, Codable {
        /// Trips completed in the measured window whose driver saw the start and the fare.
        public var trips: Int
        /// Of those, trips charged the tariff's minimum fare.
        public var atMinimumFare: Int
        /// The mean distance the car truly drove on a trip, metres.
        public var meanDrivenMeters: Double?
        /// The mean time from the start confirmed to the end confirmed, seconds.
        public var meanOnTripSeconds: Double?
        /// The mean fare charged, minor units.
        public var meanChargedMinor: Int?
        /// The mean fare the standard tariff gives for the true distance and time, minor units.
        public var meanTruthMinor: Int?
        /// The largest difference between a charged fare and its truth, minor units.
        public var largestDifferenceMinor: Int?
        /// Trips whose charged distance was judged: every one whose receipt (`Trip.receipt`, the distance
        /// the server priced) the driver saw.
        public var chargedDistanceJudged: Int?
        /// Of those, trips whose charged distance is more than 3% away from what the car drove.
        public var chargedDistanceOver3PercentOff: Int
        /// The largest difference between a charged distance and the distance driven, as a share of
        /// the distance driven (0.01 is 1%).
        public var largestChargedDistanceError: Double?
        /// Every judged trip's charged and driven metres, so a trip off by more than 3% can be found and replayed
        /// (nil in reports written before the list was kept).
        public var chargedDistances: [ChargedDistance]?
    }

    /// One completed trip's distance on its receipt against what its car drove.
    public struct ChargedDistance: Sendable, Hashable, Codable {
        /// The trip.
        public var tripID: String
        /// The distance on the receipt, metres.
        public var chargedMeters: Double
        /// What the car drove from the start confirmed to the end confirmed, metres.
        public var drivenMeters: Double
        /// Times the driver's app was killed on the trip: every kill loses the fixes not yet saved and the
        /// seconds until the relaunch (nil in reports written before it was kept).
        public var appKills: Int?
    }

    /// How long online drivers' apps went without a link to the server (sampled once a second).
    public struct DriverLinks: Sendable, Hashable, Codable {
        /// The longest stretch one app had no link at all (positions only buffered), seconds.
        public var longestDownSeconds: Double
        /// Drivers whose app had no link for more than 60 s at a stretch: the server forgets them.
        public var driversDownOver60s: Int
        /// The longest stretch one app went without the stream (offers come only on it), seconds.
        public var longestWithoutStreamSeconds: Double
        /// Drivers whose app went without the stream for more than 60 s at a stretch.
        public var driversWithoutStreamOver60s: Int
    }

    /// What a driver's phone sent in one hour online, on average.
    public struct PerDriverHour: Sendable, Hashable, Codable {
        /// Location sends (radio wake-ups): batches, live and backlog.
        public var sends: Double
        /// Bytes of those batches in the binary batch format.
        public var bytes: Double
        /// Points in those batches.
        public var points: Double
    }

    /// What the drivers' phones spent on their battery under one location policy (`BatteryModel`).
    public struct BatteryByPolicy: Sendable, Hashable, Codable {
        /// The policy: accuracy and distance filter, `best, 5 m`.
        public var policy: String
        /// Driver-hours online under it.
        public var driverHours: Double
        /// Battery percentage points per driver-hour under it.
        public var percentPerHour: Double
    }

    /// The network profile every app was on.
    public var network: String
    /// The map.
    public var map: String
    /// Seconds the city was measured.
    public var durationSeconds: Double
    /// Seconds it ran before that, unmeasured.
    public var warmupSeconds: Double
    /// Simulated drivers and riders.
    public var drivers: Int
    /// Simulated riders.
    public var riders: Int
    /// How old the position on each rider's screen was (now minus the last instant the car truly stood
    /// there), sampled five times a second while a driver was on the way or driving; frames near a tunnel
    /// are reported apart.
    public var freshnessSeconds: Percentiles
    /// The distribution behind `freshnessSeconds`: entry i counts the frames i to i + 1 s old, the last one those
    /// 20 s and older (nil in reports written before it was kept).
    public var freshnessPerSecond: [Int]?
    /// The same in frames whose car was in a tunnel (no fix possible) within the last 20 s.
    public var freshnessNearTunnelsSeconds: Percentiles
    /// `freshnessSeconds` by the trip state on screen.
    public var freshnessByState: [String: Percentiles]
    /// The same for where the car is drawn (the glide renders about one update interval behind on purpose).
    public var renderedLagSeconds: Percentiles
    /// Frames in which a rider's car was drawn where it had been only before what an earlier frame showed.
    public var backwardMoves: Int
    /// Frames in which a rider's car moved more than 50 m.
    public var jumpsOver50m: Int
    /// Of those, the glide's designed snaps: the newest fix came more than 10 s after the one shown before
    /// (a tunnel, a dead zone, a stalled stream), or the app had just been relaunched. The rest are bugs.
    public var snaps: Int
    /// The first 50 of the other jumps, each with what the audit knew of it (nil in reports written before they
    /// were kept).
    public var unexplainedJumps: [UnexplainedJump]?
    /// Frames whose car was drawn more than 30 m from anywhere the car had been lately.
    public var framesOffTruth: Int
    /// The first 50 of them, each with what the audit knew of it (nil in reports written before they were kept).
    public var offTruthFrames: [OffTruthFrame]?
    /// Share of tracking frames whose pin was still the driver's position from before the trip was
    /// assigned (sent at the waiting driver's slower pace).
    public var shareShowingPositionFromBeforeAssignment: Double
    /// Share of tracking frames that showed "Driver's location may be delayed".
    public var delayedBannerShare: Double
    /// Mean ETA changes per trip that showed an ETA: the estimated time of arrival moving, that is minutes on screen
    /// that promise an arrival the minutes shown before had ruled out (4 -> 6 -> 4 min is two; a countdown, 4, 3, 2
    /// min as the time passes, promises the same arrival and is none), judged across gaps and app kills, each leg
    /// (pickup, dropoff) apart. The design's "do not flip 4 -> 6 -> 4 min" and the chaos target (at most 1 a trip on
    /// average, 3 on any trip) are about this.
    public var etaChangesPerTrip: Double
    /// Most ETA changes on one trip.
    public var maxEtaChangesOnATrip: Int
    /// Mean changes of the minutes on screen per trip, a countdown included: the pin's minutes count down as the
    /// time passes, so this grows with the length of the legs.
    public var minuteChangesPerTrip: Double
    /// Most changes of the minutes on screen on one trip.
    public var maxMinuteChangesOnATrip: Int
    /// Trip changes the server confirmed to the driver more than 45 s before the end that the rider's
    /// screen never reached (a newer version shown counts as reached), plus fares that differ.
    public var tripEventsLost: Int
    /// Times a rider's screen entered a trip state it had already left, or its version went back.
    public var tripEventsDuplicated: Int
    /// Frames whose pin said more than the car's true position age allowed (live over 6 s, updating over
    /// 20 s, no "may be delayed" over 15 s, an ETA over 20 s), by rule: each must be 0.
    public var overclaims: ScreenOverclaims
    /// The first 50 overclaimed frames, each with the ages the audit judged it by (nil in reports written
    /// before they were kept).
    public var overclaimedFrames: [OverclaimedFrame]?
    /// Frames whose pin said less than the car's true position age allowed (locating or updating under
    /// 6 s, "may be delayed" under 15 s), by rule.
    public var underclaims: ScreenUnderclaims
    /// The trips.
    public var trips: Trips
    /// The fares against what the cars truly drove.
    public var faresAgainstTruth: FaresAgainstTruth
    /// The drivers' links.
    public var driverLinks: DriverLinks
    /// Drivers online at the end.
    public var driversOnline: Int
    /// Per driver-hour online.
    public var perDriverHour: PerDriverHour
    /// Battery per driver-hour for each location policy the phones ran under, most driver-hours first (nil in
    /// reports written before it was measured).
    public var batteryPerDriverHour: [BatteryByPolicy]?
    /// Apps killed and relaunched (riders and drivers).
    public var appKills: Int
    /// The server's trip alerts scored against what the city injected, when the run scored them.
    public var safety: SafetyScore? = nil

    /// A few lines for a terminal.
    public var summary: String {
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "-" }
        let fare = trips.meanFareMinor.map { "\($0 / 100).\(String(format: "%02d", $0 % 100)) \(trips.currency ?? "")" }
        return """
            \(drivers) drivers, \(riders) riders on \(map), network \(network), \(Int(durationSeconds)) s\
            \(warmupSeconds > 0 ? " after a warm-up of \(Int(warmupSeconds)) s" : "")
            freshness p50 \(seconds(freshnessSeconds.p50)), p99 \(seconds(freshnessSeconds.p99)) \
            (\(freshnessSeconds.samples) frames; near tunnels p99 \(seconds(freshnessNearTunnelsSeconds.p99)) \
            over \(freshnessNearTunnelsSeconds.samples)); drawn car lag p50 \(seconds(renderedLagSeconds.p50)), \
            p99 \(seconds(renderedLagSeconds.p99))
            backward moves \(backwardMoves), jumps over 50 m \(jumpsOver50m) (\(snaps) snaps after a gap, \
            \(jumpsOver50m - snaps) other), frames off the truth \(framesOffTruth), trip events lost \(tripEventsLost), \
            doubled \(tripEventsDuplicated), ETA changes per trip \(String(format: "%.2f", etaChangesPerTrip)) \
            (most \(maxEtaChangesOnATrip)); minutes on screen changed \(String(format: "%.2f", minuteChangesPerTrip)) \
            a trip, countdown included (most \(maxMinuteChangesOnATrip))
            overclaims \(overclaims.total) (\(overclaims.summary)); underclaims \(underclaims.total) \
            (\(underclaims.summary))
            trips requested \(trips.requested), completed \(trips.completed) (\(trips.completedWithFare) with a fare, \
            mean \(fare ?? "-")), cancelled \(trips.cancelled), no driver \(trips.noDriversFound); \
            under way: \(Self.describe(trips.inProgress)); driver assigned after \(seconds(trips.medianSecondsToAssign)), \
            pickup ETA \(trips.medianPickupETASeconds.map { "\($0) s" } ?? "-") (medians); \
            pickups overdue \(trips.pickupsOverdue)
            fares \(Self.describe(fares: trips.faresMinor)); against truth: \(faresAgainstTruth.trips) trips, \
            \(faresAgainstTruth.atMinimumFare) at the minimum, driven \(Self.metres(faresAgainstTruth.meanDrivenMeters)) \
            in \(seconds(faresAgainstTruth.meanOnTripSeconds)) on average, largest difference \
            \(faresAgainstTruth.largestDifferenceMinor.map(Self.money) ?? "-"); charged distance over 3% off \
            \(faresAgainstTruth.chargedDistanceOver3PercentOff) of \(faresAgainstTruth.chargedDistanceJudged ?? 0) (largest \
            \(faresAgainstTruth.largestChargedDistanceError.map { String(format: "%.1f%%", $0 * 100) } ?? "-"))
            drivers online \(driversOnline); longest without a link \(seconds(driverLinks.longestDownSeconds)) \
            (\(driverLinks.driversDownOver60s) over 60 s), without the stream \
            \(seconds(driverLinks.longestWithoutStreamSeconds)) (\(driverLinks.driversWithoutStreamOver60s) over 60 s)
            per driver-hour: \(Int(perDriverHour.sends.rounded())) sends, \
            \(Int(perDriverHour.bytes.rounded())) bytes; app kills \(appKills)
            battery per driver-hour by policy: \(Self.describe(battery: batteryPerDriverHour ?? []))\
            \(safety.map { "\n" + $0.summary } ?? "")
            """
    }

    /// One progress line for a terminal: drivers online, trips by state, freshness.
    public var progress: String {
        let p99 = freshnessSeconds.p99.map { String(format: "%.1f s", $0) } ?? "-"
        let eta = trips.medianPickupETASeconds.map { "\($0) s" } ?? "-"
        return
            "drivers online \(driversOnline); trips under way: \(Self.describe(trips.inProgress)); requested "
            + "\(trips.requested), completed \(trips.completed), cancelled \(trips.cancelled), no driver "
            + "\(trips.noDriversFound); median pickup ETA \(eta); fares \(Self.describe(fares: trips.faresMinor)); "
            + "freshness p99 \(p99); backward moves \(backwardMoves)"
    }

    /// Trips by state in the order a trip goes through them, e.g. "searching 3, onTrip 5"; "none".
    static func describe(_ states: [String: Int]) -> String {
        let order = TripState.allCases.map(\.rawValue)
        func rank(_ state: String) -> (Int, String) { (order.firstIndex(of: state) ?? order.count, state) }
        let parts = states.filter { $0.value > 0 }.sorted { rank($0.key) < rank($1.key) }
        return parts.isEmpty ? "none" : parts.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// Fares as "7.00 x3, 8.45", smallest first; "-" for none.
    static func describe(fares: [Int]) -> String {
        guard !fares.isEmpty else { return "-" }
        var counts: [(fare: Int, count: Int)] = []
        for fare in fares.sorted() {
            if counts.last?.fare == fare { counts[counts.count - 1].count += 1 } else { counts.append((fare, 1)) }
        }
        return counts.map { $0.count > 1 ? "\(money($0.fare)) x\($0.count)" : money($0.fare) }.joined(separator: ", ")
    }

    /// Battery per policy as "best, 5 m 15.0% (0.8 h); balanced, 50 m 8.4% (2.1 h)"; "-" for none.
    static func describe(battery: [BatteryByPolicy]) -> String {
        guard !battery.isEmpty else { return "-" }
        return battery.map {
            "\($0.policy) \(String(format: "%.1f", $0.percentPerHour))% (\(String(format: "%.1f", $0.driverHours)) h)"
        }.joined(separator: "; ")
    }

    /// Minor units as "7.00" (negative as "-0.35").
    static func money(_ minor: Int) -> String {
        "\(minor < 0 ? "-" : "")\(abs(minor) / 100).\(String(format: "%02d", abs(minor) % 100))"
    }

    static func metres(_ value: Double?) -> String { value.map { "\(Int($0.rounded())) m" } ?? "-" }

    /// The report as pretty JSON with sorted keys.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

extension SimulationReport.Percentiles {
    init(_ histogram: SecondsHistogram) {
        self.init(
            p50: histogram.percentile(0.5), p99: histogram.percentile(0.99),
            max: histogram.count > 0 ? histogram.maximum : nil, samples: histogram.count)
    }
}
