import Foundation
import HailCore
import HailSim
import Testing

/// The trip alerts scored against what the city injected: caught, missed, open, how fast, and false alarms.
@Suite("SafetyScore: alerts against injections")
struct SafetyScoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func injectedEventsAreCaughtMissedOrStillOpenAndTheRestOfTheAlertsAreFalseAlarms() {
        let injections = [
            // Caught 14 s after it left the corridor, and 21 s.
            InjectedEvent(tripID: "a", kind: .routeDeviation, began: Self.at(10), ended: Self.at(60)),
            InjectedEvent(tripID: "b", kind: .routeDeviation, began: Self.at(20), ended: Self.at(80)),
            // Re-routed back after 70 s, never caught: missed.
            InjectedEvent(tripID: "c", kind: .routeDeviation, began: Self.at(30), ended: Self.at(100)),
            // Never left the corridor: not counted.
            InjectedEvent(tripID: "d", kind: .routeDeviation),
            // A stop caught 12 s after its 3 minutes; one not yet 3 minutes and 30 s old at the end: open.
            InjectedEvent(tripID: "e", kind: .longStop, began: Self.at(0), ended: Self.at(220)),
            InjectedEvent(tripID: "f", kind: .longStop, began: Self.at(100)),
        ]
        let alerts = [
            SafetyScore.RaisedAlert(tripID: "a", kind: .routeDeviation, at: Self.at(24)),
            SafetyScore.RaisedAlert(tripID: "b", kind: .routeDeviation, at: Self.at(41)),
            SafetyScore.RaisedAlert(tripID: "e", kind: .longStop, at: Self.at(192)),
            // On a trip with nothing injected: false alarms.
            SafetyScore.RaisedAlert(tripID: "x", kind: .routeDeviation, at: Self.at(50)),
            SafetyScore.RaisedAlert(tripID: "y", kind: .longStop, at: Self.at(50)),
            // On an injected trip, of the other kind: unmatched.
            SafetyScore.RaisedAlert(tripID: "c", kind: .longStop, at: Self.at(50)),
        ]
        let score = SafetyScore(
            injections: injections, alerts: alerts, tripsUnderWay: ["a", "b", "c", "d", "e", "f", "x", "y", "z"],
            now: Self.at(300), arrivedRefused: 1, startedRefused: 0)
        #expect(score.deviations.injected == 3)
        #expect(score.deviations.detected == 2)
        #expect(score.deviations.missed == 1)
        #expect(score.deviations.missedTrips == ["c"])
        #expect(score.deviations.secondsToDetect.p50 == 14)
        #expect(score.deviations.secondsToDetect.p99 == 21)
        #expect(score.stops.injected == 2)
        #expect(score.stops.detected == 1)
        #expect(score.stops.open == 1)
        #expect(score.stops.secondsToDetect.p50 == 12)
        #expect(score.tripsUnderWay == 9)
        #expect(score.tripsWithoutInjection == 3)
        #expect(score.falseDeviationAlarms == 1)
        #expect(score.falseStopAlarms == 1)
        #expect(score.falseAlarmTrips == ["x", "y"])
        #expect(score.unmatchedAlarms == 1)
        #expect(score.arrivedRefused == 1)
        #expect(
            score.summary.hasPrefix(
                "trip safety: wrong turns: injected 3, detected 2, missed 1; time to detect p50 14.0 s, p99 21.0 s"))
    }

    @Test func aWrongTurnIsTimedFromTheExcursionAlarmedAndAlsoFromItsFirstExit() {
        // Out at 10 s, back inside the corridor, out again at 27 s; alarmed at 38 s. Another out at 10 s and
        // at 40 s, alarmed at 30 s: from 10 s, the exit after the alarm is none of its business.
        var cameBack = InjectedEvent(tripID: "a", kind: .routeDeviation, began: Self.at(10), ended: Self.at(90))
        cameBack.exits = [Self.at(10), Self.at(27)]
        var alarmedFirst = InjectedEvent(tripID: "b", kind: .routeDeviation, began: Self.at(10), ended: Self.at(90))
        alarmedFirst.exits = [Self.at(10), Self.at(40)]
        let score = SafetyScore(
            injections: [cameBack, alarmedFirst],
            alerts: [
                SafetyScore.RaisedAlert(tripID: "a", kind: .routeDeviation, at: Self.at(38)),
                SafetyScore.RaisedAlert(tripID: "b", kind: .routeDeviation, at: Self.at(30)),
            ],
            tripsUnderWay: ["a", "b"], now: Self.at(300))
        #expect(score.deviations.detected == 2)
        #expect(score.deviations.secondsToDetect.p50 == 11)
        #expect(score.deviations.secondsToDetect.p99 == 20)
        #expect(score.deviations.secondsFromFirstExit?.p50 == 20)
        #expect(score.deviations.secondsFromFirstExit?.p99 == 28)
        #expect(score.stops.secondsFromFirstExit == nil)
        #expect(
            score.summary.hasPrefix(
                "trip safety: wrong turns: injected 2, detected 2, missed 0; time to detect p50 11.0 s, p99 20.0 s "
                    + "(from the first exit p50 20.0 s, p99 28.0 s); long stops"))
    }
}
