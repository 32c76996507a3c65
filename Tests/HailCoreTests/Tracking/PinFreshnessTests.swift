import Foundation
import HailCore
import Testing

@Suite("Pin freshness on the server's clock")
struct PinFreshnessTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    /// The phone's clock is two minutes behind the server's; the offset comes from a hello exchange.
    static func serverClockWithPhoneTwoMinutesBehind() -> ServerClock {
        var clock = ServerClock()
        let sent = Date(timeIntervalSince1970: 1_799_999_000)
        clock.add(
            .init(sentAt: sent, serverTime: sent.addingTimeInterval(120.25), receivedAt: sent.addingTimeInterval(0.5)))
        return clock
    }

    @Test(arguments: [
        (5.999, PinFreshness.Level.live, false),
        (6.0, .updating, false),
        (14.999, .updating, false),
        (15.0, .updating, true),
        (19.999, .updating, true),
        (20.0, .locating, true),
    ])
    func levelsAtTheBoundariesWithTheDeviceClockTwoMinutesOff(age: Double, level: PinFreshness.Level, banner: Bool) {
        let clock = Self.serverClockWithPhoneTwoMinutesBehind()
        #expect(clock.offset == 120)
        // The phone reads two minutes less than the server at the moment we evaluate.
        let deviceNow = Self.receivedAt.addingTimeInterval(age - 120)
        let pin = PinFreshness(receivedAt: Self.receivedAt, serverNow: clock.serverNow(deviceNow: deviceNow))
        #expect(pin.level == level)
        #expect(pin.showsDelayedBanner == banner)
        #expect(pin.animates == (level == .live))
        #expect(pin.allowsETA == (level != .locating))
        // Measured on the raw phone clock the fix would look 2 minutes in the future and always live.
        let naive = PinFreshness(receivedAt: Self.receivedAt, serverNow: deviceNow)
        #expect(naive.level == .live)
    }

    @Test func noFixIsLocatingWithTheBanner() {
        let pin = PinFreshness(receivedAt: nil, serverNow: Self.receivedAt)
        #expect(pin.level == .locating)
        #expect(pin.age == nil)
        #expect(pin.showsDelayedBanner)
    }

    @Test func agesFromWhenThePhoneTookTheFixWhenTheServerSaysSo() {
        // Taken 1.5 s before the server received it (the batcher's hold and a slow uplink).
        let location = DriverLocation(
            coordinate: Coordinate(lat: 43.73, lng: 7.42), heading: 0, seq: 7, receivedAt: Self.receivedAt,
            fixedAt: Self.receivedAt.addingTimeInterval(-1.5))
        let pin = PinFreshness(of: location, serverNow: Self.receivedAt.addingTimeInterval(4.5))
        #expect(pin.age == 6)
        #expect(pin.level == .updating)
        // A server that sends no fixedAt: the age counts from the receipt, as before.
        var older = location
        older.fixedAt = nil
        #expect(PinFreshness(of: older, serverNow: Self.receivedAt.addingTimeInterval(4.5)).level == .live)
        #expect(PinFreshness(of: nil, serverNow: Self.receivedAt).level == .locating)
    }

    @Test func aFixStampedInTheFutureIsAgeZero() {
        let pin = PinFreshness(receivedAt: Self.receivedAt, serverNow: Self.receivedAt.addingTimeInterval(-3))
        #expect(pin.age == 0)
        #expect(pin.level == .live)
    }
}

@Suite("Server clock offset")
struct ServerClockTests {
    static let base = Date(timeIntervalSince1970: 1_800_000_000)

    static func sample(sentAt: Double, rtt: Double, offset: Double) -> ServerClock.Sample {
        ServerClock.Sample(
            sentAt: base.addingTimeInterval(sentAt),
            serverTime: base.addingTimeInterval(sentAt + rtt / 2 + offset),
            receivedAt: base.addingTimeInterval(sentAt + rtt))
    }

    @Test func prefersTheSampleWithTheSmallestRoundTrip() {
        var clock = ServerClock()
        clock.add(Self.sample(sentAt: 0, rtt: 2, offset: -30.5))
        clock.add(Self.sample(sentAt: 10, rtt: 0.25, offset: -30))
        clock.add(Self.sample(sentAt: 20, rtt: 1, offset: -29))
        #expect(clock.offset == -30)
        #expect(clock.serverNow(deviceNow: Self.base) == Self.base.addingTimeInterval(-30))
        #expect(clock.deviceTime(forServerTime: Self.base) == Self.base.addingTimeInterval(30))
    }

    @Test func isZeroBeforeAnySampleAndRefusesANegativeRoundTrip() {
        var clock = ServerClock()
        #expect(clock.offset == 0)
        let stepped = ServerClock.Sample(
            sentAt: Self.base, serverTime: Self.base, receivedAt: Self.base.addingTimeInterval(-1))
        let taken = clock.add(stepped)
        #expect(!taken)
        #expect(clock.samples.isEmpty)
    }

    @Test func forgetsSamplesBeyondItsCapacity() {
        var clock = ServerClock(capacity: 2)
        clock.add(Self.sample(sentAt: 0, rtt: 0.1, offset: 5))
        clock.add(Self.sample(sentAt: 1, rtt: 0.5, offset: 7))
        clock.add(Self.sample(sentAt: 2, rtt: 0.5, offset: 8))
        // The 0.1 s sample is gone (the device clock may have been changed since); of equals the newest wins.
        #expect(clock.offset == 8)
    }
}
