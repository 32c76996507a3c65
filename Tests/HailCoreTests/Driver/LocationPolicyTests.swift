import HailCore
import Testing

struct LocationPolicyTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let activity: DriverActivity
        let thermal: ThermalState
        let lowPower: Bool
        let expected: LocationPolicy
        var testDescription: String { "\(activity) \(thermal) lowPower=\(lowPower)" }
    }

    static func live(
        _ interval: ClosedRange<Double>, _ filter: Double, _ accuracy: LocationAccuracy, _ degraded: Bool,
        moving: Double? = nil
    ) -> LocationPolicy {
        LocationPolicy(
            isOff: false, interval: interval, distanceFilter: filter, accuracy: accuracy, degraded: degraded,
            movingDistance: moving)
    }

    /// Every combination, written out: 4 activities x 4 thermal states x Low Power on and off.
    static let table: [Row] = {
        let waiting: ClosedRange<Double> = 10...15
        let active: ClosedRange<Double> = 2...4
        var rows: [Row] = []
        for thermal in ThermalState.allCases {
            for lowPower in [false, true] {
                rows.append(Row(activity: .offline, thermal: thermal, lowPower: lowPower, expected: .off))
            }
        }
        let expectations: [(ThermalState, Bool, waiting: LocationPolicy, active: LocationPolicy)] = [
            (.nominal, false, live(waiting, 50, .balanced, false), live(active, 5, .best, false, moving: 22)),
            (.nominal, true, live(waiting, 50, .balanced, true), live(active, 20, .nearestTenMeters, true, moving: 22)),
            (.fair, false, live(waiting, 50, .balanced, true), live(active, 20, .nearestTenMeters, true, moving: 22)),
            (.fair, true, live(waiting, 50, .balanced, true), live(active, 20, .nearestTenMeters, true, moving: 22)),
            (
                .serious, false, live(waiting, 50, .hundredMeters, true),
                live(active, 50, .hundredMeters, true, moving: 22)
            ),
            (
                .serious, true, live(waiting, 50, .hundredMeters, true),
                live(active, 50, .hundredMeters, true, moving: 22)
            ),
            (
                .critical, false, live(waiting, 50, .hundredMeters, true),
                live(active, 50, .hundredMeters, true, moving: 22)
            ),
            (
                .critical, true, live(waiting, 50, .hundredMeters, true),
                live(active, 50, .hundredMeters, true, moving: 22)
            ),
        ]
        for (thermal, lowPower, waitingPolicy, activePolicy) in expectations {
            rows.append(Row(activity: .waitingForTrip, thermal: thermal, lowPower: lowPower, expected: waitingPolicy))
            rows.append(Row(activity: .toPickup, thermal: thermal, lowPower: lowPower, expected: activePolicy))
            rows.append(Row(activity: .onTrip, thermal: thermal, lowPower: lowPower, expected: activePolicy))
        }
        return rows
    }()

    @Test func tableCoversEveryCombinationOnce() {
        let keys = Set(Self.table.map { "\($0.activity)-\($0.thermal)-\($0.lowPower)" })
        #expect(Self.table.count == 32)
        #expect(keys.count == 32)
    }

    @Test(arguments: table)
    func policyMatchesTheTable(row: Row) {
        #expect(LocationPolicy(activity: row.activity, thermal: row.thermal, lowPower: row.lowPower) == row.expected)
    }

    @Test func offlineIsOffAndNotDegradedEvenWhenHot() {
        let policy = LocationPolicy(activity: .offline, thermal: .critical, lowPower: true)
        #expect(policy.isOff)
        #expect(!policy.degraded)
    }

    @Test func heatNeverMakesThePhoneAskForMore() {
        for activity in DriverActivity.allCases where activity != .offline {
            for lowPower in [false, true] {
                let policies = ThermalState.allCases.map {
                    LocationPolicy(activity: activity, thermal: $0, lowPower: lowPower)
                }
                for (cooler, hotter) in zip(policies, policies.dropFirst()) {
                    #expect(hotter.accuracy >= cooler.accuracy)
                    #expect(hotter.distanceFilter >= cooler.distanceFilter)
                    #expect(hotter.interval == cooler.interval)
                }
            }
        }
    }

    @Test func orderingsRunFromCoolToHotAndFineToCoarse() {
        #expect(ThermalState.allCases.sorted() == [.nominal, .fair, .serious, .critical])
        #expect(LocationAccuracy.allCases.sorted() == [.best, .nearestTenMeters, .balanced, .hundredMeters])
    }
}
