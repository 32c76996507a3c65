import Foundation
import HailCore
import HailSim
import Testing

@Suite("The simulated phone's battery")
struct BatteryModelTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let trip = LocationPolicy(activity: .onTrip, thermal: .nominal, lowPower: false)
    static let waiting = LocationPolicy(activity: .waitingForTrip, thermal: .nominal, lowPower: false)

    /// An hour under `policy` with a send every `every` seconds; the percentage points it cost.
    static func hour(_ policy: LocationPolicy, sendEvery every: Int) -> Double {
        var battery = BatteryModel(at: start)
        for second in 1...3600 {
            let now = start.addingTimeInterval(Double(second))
            battery.advance(to: now, policy: policy)
            if second % every == 0 { battery.sent(at: now) }
        }
        return (1 - battery.level) * 100
    }

    @Test func anHourOnATripSendingEveryTwoSecondsKeepsTheRadioAwake() {
        // 0.6 W screen + 0.4 W best GPS all the hour, the radio's 0.8 W from the first send (at 2 s) on:
        // 3,600 + 2,878.4 = 6,478.4 J of 43,200: 15%.
        let drained = Self.hour(Self.trip, sendEvery: 2)
        #expect(abs(drained - 6_478.4 / 432) < 1e-9)
    }

    @Test func waitingAtBalancedAccuracyLetsTheRadioSleep() {
        // 0.68 W all the hour, the radio 5 s after each of the 299 sends before the hour's last second:
        // 2,448 + 1,196 = 3,644 J: 8.4%.
        #expect(abs(Self.hour(Self.waiting, sendEvery: 12) - 3_644.0 / 432) < 1e-9)
        // Location off: the screen alone.
        #expect(abs(Self.hour(.off, sendEvery: 100_000) - 2_160.0 / 432) < 1e-9)
    }

    @Test func eachPolicyIsChargedWithItsOwnTime() {
        var battery = BatteryModel(level: 0.5, at: Self.start)
        battery.advance(to: Self.start.addingTimeInterval(60), policy: Self.waiting)
        battery.sent(at: Self.start.addingTimeInterval(60))
        battery.advance(to: Self.start.addingTimeInterval(90), policy: Self.trip)
        #expect(BatteryModel.label(of: Self.trip) == "best, 5 m")
        #expect(BatteryModel.label(of: Self.waiting) == "balanced, 50 m")
        #expect(battery.byPolicy["balanced, 50 m"]?.seconds == 60)
        #expect(battery.byPolicy["best, 5 m"]?.seconds == 30)
        // 0.68 W x 60 s = 40.8 J; then 1.0 W x 30 s + the radio's 5 s tail at 0.8 W = 34 J.
        #expect(abs(battery.byPolicy["balanced, 50 m"]!.percent - 40.8 / 432) < 1e-12)
        #expect(abs(battery.byPolicy["best, 5 m"]!.percent - 34 / 432) < 1e-12)
        #expect(abs(battery.level - (0.5 - 74.8 / 43_200)) < 1e-12)
    }
}
