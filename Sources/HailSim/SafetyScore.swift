import Foundation
import HailCore

/// The server's trip alerts scored against what the city injected (issue 41's targets): per kind, how many injected
/// events were caught, missed or still open when the run ended, and how long catching them took; the alerts on trips
/// where nothing was injected (false alarms); and the pickup position check's refusals of cars truly at the pickup.
/// Pure: it is given the injections, the alerts as the trips' event logs hold them, and the end of the run.
public struct SafetyScore: Sendable, Hashable, Codable {
    /// One alert, as the trip's event log holds it.
    public struct RaisedAlert: Sendable, Hashable, Codable {
        /// The trip.
        public var tripID: String
        /// What it said.
        public var kind: TripAlertKind
        /// When it was committed (server time): when the rider's stream was handed it.
        public var at: Date

        /// Creates an alert.
        public init(tripID: String, kind: TripAlertKind, at: Date) {
            self.tripID = tripID
            self.kind = kind
            self.at = at
        }
    }

    /// How the injected events of one kind fared.
    public struct Detection: Sendable, Hashable, Codable {
        /// Injected events that truly began (a wrong turn out of the corridor, a car at rest).
        public var injected = 0
        /// Caught by an alert of their kind on their trip.
        public var detected = 0
        /// Judged and not caught.
        public var missed = 0
        /// Not judged yet when the run ended (a stop not yet 3 minutes and 30 s long, a wrong turn under a minute).
        public var open = 0
        /// Seconds from the event's start (a wrong turn leaving the corridor, for the excursion its alert caught; a
        /// stop's 3 minutes passed) to its alert: p50, p99, max.
        public var secondsToDetect: SimulationReport.Percentiles
        /// For wrong turns, seconds from the first time the car left the corridor to the alert, even when it came
        /// back inside it and left again before (`secondsToDetect` counts from the excursion alarmed): p50,
        /// p99, max; nil for stops.
        public var secondsFromFirstExit: SimulationReport.Percentiles?
        /// The trips of the missed ones.
        public var missedTrips: [String] = []
    }

    /// Wrong turns.
    public var deviations: Detection
    /// Long stops.
    public var stops: Detection
    /// Trips that were under way in the run.
    public var tripsUnderWay: Int
    /// Of them, those where nothing was injected.
    public var tripsWithoutInjection: Int
    /// Alerts on trips where nothing was injected, by kind: each one a false alarm.
    public var falseDeviationAlarms: Int
    /// Long-stop alerts on trips where nothing was injected.
    public var falseStopAlarms: Int
    /// The trips of the false alarms.
    public var falseAlarmTrips: [String]
    /// Alerts on injected trips that match nothing injected (another kind, or before it began).
    public var unmatchedAlarms: Int
    /// `arrived` refused as too far from the pickup (the simulated cars tap it at the pickup: false refusals).
    public var arrivedRefused: Int
    /// `started` refused as too far from the pickup.
    public var startedRefused: Int
    /// Every injected event scored, with its times: what a run's trips are read against.
    public var events: [InjectedEvent] = []

    /// The server's long-stop threshold, seconds: a stop's time to detect counts from when it passed.
    public static let stopThresholdSeconds = 180.0
    /// How long after its start a wrong turn is judged, seconds (3 times the 20 s target).
    public static let deviationJudgedAfter = 60.0
    /// How long after its threshold a stop is judged, seconds (the 30 s target).
    public static let stopJudgedAfter = 30.0
    /// An alert up to this long before an event's recorded start still matches it, seconds: the city records starts
    /// once a second.
    public static let startSlack = 2.0

    /// Scores `alerts` against `injections` for the `tripsUnderWay`, at `now` (the run's end).
    public init(
        injections: [InjectedEvent], alerts: [RaisedAlert], tripsUnderWay: Set<String>, now: Date,
        arrivedRefused: Int = 0, startedRefused: Int = 0
    ) {
        var matched = Set<Int>()
        func score(_ kind: TripAlertKind) -> Detection {
            var detection = Detection(secondsToDetect: .init(p50: nil, p99: nil, max: nil, samples: 0))
            var delays: [Double] = []
            var fromFirst: [Double] = []
            for event in injections where event.kind == kind {
                guard let began = event.began else { continue }
                detection.injected += 1
                let due = kind == .longStop ? began.addingTimeInterval(Self.stopThresholdSeconds) : began
                let hit = alerts.indices.first {
                    alerts[$0].tripID == event.tripID && alerts[$0].kind == kind
                        && alerts[$0].at >= began.addingTimeInterval(-Self.startSlack)
                }
                if let hit {
                    matched.insert(hit)
                    detection.detected += 1
                    let alerted = alerts[hit].at
                    // A wrong turn is timed from the excursion alarmed: the last time the car left the corridor.
                    let left =
                        kind == .longStop
                        ? due : event.exits.last { $0 <= alerted.addingTimeInterval(Self.startSlack) } ?? due
                    delays.append(max(0, alerted.timeIntervalSince(left)))
                    fromFirst.append(max(0, alerted.timeIntervalSince(due)))
                    continue
                }
                let judgedAfter = kind == .longStop ? Self.stopJudgedAfter : Self.deviationJudgedAfter
                let lasted = (event.ended ?? now).timeIntervalSince(due)
                // A stop that ended before it was long enough to be judged is no long stop to catch.
                if lasted >= judgedAfter {
                    detection.missed += 1
                    detection.missedTrips.append(event.tripID)
                } else {
                    detection.open += 1
                }
            }
            detection.secondsToDetect = Self.percentiles(delays)
            if kind == .routeDeviation { detection.secondsFromFirstExit = Self.percentiles(fromFirst) }
            return detection
        }
        deviations = score(.routeDeviation)
        stops = score(.longStop)
        let injected = Set(injections.map(\.tripID))
        self.tripsUnderWay = tripsUnderWay.count
        tripsWithoutInjection = tripsUnderWay.subtracting(injected).count
        var falseDeviations = 0
        var falseStops = 0
        var falseTrips = Set<String>()
        var unmatched = 0
        for (index, alert) in alerts.enumerated() where !matched.contains(index) {
            guard !injected.contains(alert.tripID) else {
                unmatched += 1
                continue
            }
            falseTrips.insert(alert.tripID)
            if alert.kind == .longStop { falseStops += 1 } else { falseDeviations += 1 }
        }
        falseDeviationAlarms = falseDeviations
        falseStopAlarms = falseStops
        falseAlarmTrips = falseTrips.sorted()
        unmatchedAlarms = unmatched
        self.arrivedRefused = arrivedRefused
        self.startedRefused = startedRefused
        events = injections
    }

    /// p50, p99 (nearest rank) and the largest of `values`.
    static func percentiles(_ values: [Double]) -> SimulationReport.Percentiles {
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double? {
            guard !sorted.isEmpty else { return nil }
            return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        return .init(p50: rank(0.5), p99: rank(0.99), max: sorted.last, samples: sorted.count)
    }

    /// Two lines for a terminal.
    public var summary: String {
        func line(_ name: String, _ detection: Detection) -> String {
            let p50 = detection.secondsToDetect.p50.map { String(format: "%.1f s", $0) } ?? "-"
            let p99 = detection.secondsToDetect.p99.map { String(format: "%.1f s", $0) } ?? "-"
            let first = detection.secondsFromFirstExit.map { from in
                let p50 = from.p50.map { String(format: "%.1f s", $0) } ?? "-"
                let p99 = from.p99.map { String(format: "%.1f s", $0) } ?? "-"
                return " (from the first exit p50 \(p50), p99 \(p99))"
            }
            return "\(name): injected \(detection.injected), detected \(detection.detected), missed \(detection.missed)"
                + (detection.open > 0 ? ", open at the end \(detection.open)" : "") + "; time to detect p50 \(p50), "
                + "p99 \(p99)" + (first ?? "")
        }
        return """
            trip safety: \(line("wrong turns", deviations)); \(line("long stops", stops)) (from the 3 minutes)
            false alarms on \(tripsWithoutInjection) of \(tripsUnderWay) trips without an injection: \
            \(falseDeviationAlarms) route deviations, \(falseStopAlarms) long stops; other unmatched \(unmatchedAlarms); \
            pickup check refused \(arrivedRefused) arrived and \(startedRefused) started at the pickup
            """
    }
}
