import Foundation
import HailCore
import Testing

@Suite("Arrival and start weighed against the driver's freshest fix, pure")
struct PickupProximityTests {
    static let pickup = Coordinate(lat: 43.7396, lng: 7.4276)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func fix(northDegrees: Double, receivedSecondsAgo: Double) -> DriverLocation {
        DriverLocation(
            coordinate: Coordinate(lat: pickup.lat + northDegrees, lng: pickup.lng), heading: 0, seq: 1,
            receivedAt: t0.addingTimeInterval(-receivedSecondsAgo))
    }

    static func meters(_ verdict: PickupProximity.Verdict) -> Int? {
        switch verdict {
        case .near(let distance), .far(let distance): return Int(distance.rounded())
        case .unverified: return nil
        }
    }

    @Test func aFreshFixMoreThan150mAwayRefusesAndOneWithinAccepts() {
        let far = PickupProximity.judge(
            Self.fix(northDegrees: 0.0014, receivedSecondsAgo: 0), pickup: Self.pickup, now: Self.t0)
        let near = PickupProximity.judge(
            Self.fix(northDegrees: 0.0013, receivedSecondsAgo: 0), pickup: Self.pickup, now: Self.t0)
        guard case .far = far, case .near = near else {
            Issue.record("155.7 m must be far and 144.6 m near: \(far), \(near)")
            return
        }
        #expect(Self.meters(far) == 156)
        #expect(Self.meters(near) == 145)
    }

    @Test func aFixReceivedMoreThan30sAgoIsNoEvidence() {
        let thirty = PickupProximity.judge(
            Self.fix(northDegrees: 0.0036, receivedSecondsAgo: 30), pickup: Self.pickup, now: Self.t0)
        #expect(Self.meters(thirty) == 400)
        if case .far = thirty {} else { Issue.record("a fix received 30 s ago still counts") }
        #expect(
            PickupProximity.judge(
                Self.fix(northDegrees: 0.0036, receivedSecondsAgo: 30.5), pickup: Self.pickup, now: Self.t0)
                == .unverified)
        #expect(PickupProximity.judge(nil, pickup: Self.pickup, now: Self.t0) == .unverified)
    }
}
