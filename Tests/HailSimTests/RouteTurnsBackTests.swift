import Foundation
import HailCore
import HailRoads
import Testing

@testable import HailSim

@Suite("A simulated car slows for a turn back")
struct RouteTurnsBackTests {
    static let start = Coordinate(lat: 43.7300, lng: 7.4200)
    /// 20 m north of `start`.
    static let tip = Coordinate(lat: 43.7300 + 20 / 111_195.0, lng: 7.4200)
    /// 20 m east of `tip`.
    static let corner = Coordinate(lat: tip.lat, lng: 7.4200 + 20 / (111_195.0 * cos(43.73018 * .pi / 180)))

    @Test("20 m out and back at 10 m/s takes 3.58 s each way, braking to 2 m/s at the tip, not 2 s")
    func outAndBack() throws {
        let route = Route(distance: 40, duration: 4, coordinates: [Self.start, Self.tip, Self.start], edges: [])
        let slowed = route.slowingForTurnsBack()
        // sqrt(2² + 2 × 2 × 20) - 2, over 2 m/s²: the whole 20 m is within the 24 m it takes to brake from 10 m/s.
        #expect(Int((slowed.times[1] * 100).rounded()) == 358)
        #expect(Int((slowed.duration * 100).rounded()) == 717)
        #expect(slowed.times.last == slowed.duration)
        #expect(slowed.coordinates == route.coordinates)
        #expect(slowed.distance == 40)
        // Half a second before the tip the car is within 3 m of it (at the router's times it was 5 m away).
        let nearTip = try #require(slowed.position(atSeconds: slowed.times[1] - 0.5)).coordinate
        #expect(nearTip.distance(to: Self.tip) < 3)
    }

    @Test("A long stretch into a turn back is slowed only by the braking: 200 m at 10 m/s takes 21.6 s, not 20 s")
    func longStretch() {
        let far = Coordinate(lat: 43.7300 + 200 / 111_195.0, lng: 7.4200)
        let route = Route(
            distance: 220, duration: 22,
            coordinates: [Self.start, far, Coordinate(lat: far.lat - 20 / 111_195.0, lng: 7.42)],
            edges: [])
        let slowed = route.slowingForTurnsBack()
        // 24 m of braking in 4 s, where cruising took 2.4 s; then 176 m at 10 m/s.
        #expect(Int((slowed.times[1] * 10).rounded()) == 216)
    }

    @Test("A right-angle turn and a straight road keep the router's times")
    func otherTurnsKeepTheirTimes() {
        let turn = Route(distance: 40, duration: 4, coordinates: [Self.start, Self.tip, Self.corner], edges: [])
        #expect(turn.slowingForTurnsBack() == turn)
        let straight = Route(distance: 20, duration: 2, coordinates: [Self.start, Self.tip], edges: [])
        #expect(straight.slowingForTurnsBack() == straight)
    }
}
