import Foundation
import HailCore
import HailDriver
import HailRoads
import Testing

@testable import HailSim

@Suite("What the simulated city measures and where its riders stand")
struct CityMeasuresTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theLongestStretchesWithoutALinkCountOnlineSecondsAndOneStillGoingOn() {
        var watch = LinkWatch()
        let links: [(online: Bool, link: DriverLink)] = [
            (true, .stream), (true, .http), (true, .down), (true, .down), (true, .down), (true, .stream),
            (false, .down), (false, .down), (true, .http), (true, .http),
        ]
        for (second, sample) in links.enumerated() {
            watch.observe(online: sample.online, link: sample.link, at: Self.start.addingTimeInterval(Double(second)))
        }
        let end = Self.start.addingTimeInterval(Double(links.count - 1))
        // Down from 2 s to 5 s; without the stream from 1 s to 5 s, then from 8 s on (offline time not counted).
        #expect(watch.longestDown(at: end) == 3)
        #expect(watch.longestWithoutStream(at: end) == 4)
        // The stretch without the stream that began at 8 s is the longest by 20 s.
        #expect(watch.longestWithoutStream(at: Self.start.addingTimeInterval(20)) == 12)
    }

    @Test func ridersStandOnStreetsInTheMiddleOfTheMap() {
        let graph = GeneratedCity(seed: 1).graph
        let everywhere = CityWorld.spots(of: graph)
        let core = CityWorld.spots(of: graph, coreShare: 0.5)
        #expect(core.count == (everywhere.count + 1) / 2)
        #expect(Set(core).isSubset(of: Set(everywhere)))
        // The core is the half nearest the middle: nothing outside it is nearer than anything in it.
        let middle = Coordinate(
            lat: everywhere.map(\.lat).sorted()[everywhere.count / 2],
            lng: everywhere.map(\.lng).sorted()[everywhere.count / 2])
        let reach = core.map { $0.distance(to: middle) }.max() ?? 0
        #expect(everywhere.filter { !core.contains($0) }.allSatisfy { $0.distance(to: middle) > reach })
    }

    @Test func faresAndTripStatesReadAsATerminalLine() {
        #expect(SimulationReport.describe(fares: [845, 700, 700, 1210]) == "7.00 x2, 8.45, 12.10")
        #expect(SimulationReport.describe(fares: []) == "-")
        #expect(
            SimulationReport.describe(["onTrip": 5, "searching": 2, "driverArrived": 0, "driverAssigned": 1])
                == "searching 2, driverAssigned 1, onTrip 5")
        #expect(SimulationReport.describe([:]) == "none")
    }

    @Test func faresAreHeldAgainstTheTariffOfWhatTheCarTrulyDrove() {
        let trips = [
            // At the minimum fare, which says nothing of the distance: the receipt does (910 m, 1.1 % over).
            SimDriver.FareCheck(
                tripID: "t1", fare: Money(amountMinor: 700, currency: "EUR"), chargedMeters: 910, at: Self.start,
                drivenMeters: 900, onTripSeconds: 100, appKills: 0),
            // 3,000 m in 360 s: 250 + 360 + 180 = 790; charged for 3,250 m: 820.
            SimDriver.FareCheck(
                tripID: "t2", fare: Money(amountMinor: 820, currency: "EUR"), chargedMeters: 3_250, at: Self.start,
                drivenMeters: 3_000, onTripSeconds: 360, appKills: 1),
        ]
        let check = City.faresAgainstTruth(trips)
        #expect(check.trips == 2)
        #expect(check.atMinimumFare == 1)
        #expect(check.meanDrivenMeters == 1_950)
        #expect(check.meanOnTripSeconds == 230)
        #expect(check.meanChargedMinor == 760)
        #expect(check.meanTruthMinor == 745)
        #expect(check.largestDifferenceMinor == 30)
        // Every trip is judged from its receipt, the one at the minimum fare too: the second is 250 m over.
        #expect(check.chargedDistanceJudged == 2)
        #expect(check.chargedDistanceOver3PercentOff == 1)
        #expect(check.largestChargedDistanceError == 250.0 / 3_000)
        #expect(
            check.chargedDistances == [
                SimulationReport.ChargedDistance(tripID: "t1", chargedMeters: 910, drivenMeters: 900, appKills: 0),
                SimulationReport.ChargedDistance(tripID: "t2", chargedMeters: 3_250, drivenMeters: 3_000, appKills: 1),
            ])
    }
}
