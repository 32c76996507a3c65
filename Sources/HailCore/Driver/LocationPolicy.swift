import Foundation

/// How the driver app asks for locations: how often, after how much movement, how accurately, and whether
/// it is running degraded (which it reports to the server, so dispatch can see it).
///
/// The rule, from the brief's two tables:
/// - Activity sets the cadence. Offline is off. Waiting for a trip sends every 10-15 s or after 50 m
///   moved, at balanced accuracy. Going to the pickup and on a trip send every 2-4 s at the thermal tier's
///   accuracy and distance filter: every 2 s while the car moves at least 22 m in them (the rider is watching
///   it), every 3 s otherwise.
/// - Heat and Low Power set a tier: nominal without Low Power is best accuracy with a 5 m filter; fair or
///   Low Power is about 10 m with a 20 m filter; serious or critical is about 100 m with a 50 m filter.
///   Low Power never makes a hot phone look cooler: serious with Low Power stays serious.
/// - They combine by taking the cheaper of the two on each dial: the coarser accuracy and the larger
///   distance filter. So heat can only coarsen a waiting driver (serious turns balanced into 100 m) and
///   never makes them send more. The interval is the activity's in every tier: the rider's freshness
///   budget is about time, and heat is answered by coarser fixes, not staler ones.
/// - Degraded is true whenever the tier is not nominal and the driver is online, even when waiting at
///   balanced accuracy already; dispatch wants to know the phone is struggling before it offers a trip.
public struct LocationPolicy: Codable, Sendable, Hashable {
    /// True when no location should be requested at all; the other fields are then meaningless.
    public var isOff: Bool
    /// The range of seconds between updates sent to the server.
    public var interval: ClosedRange<TimeInterval>
    /// Metres the phone must move before the hardware reports a new fix.
    public var distanceFilter: Double
    /// The accuracy to ask for.
    public var accuracy: LocationAccuracy
    /// True when heat or Low Power has coarsened the policy; reported to the server.
    public var degraded: Bool
    /// While a rider watches, metres from the position last sent past which a batch goes at the interval's lower
    /// bound rather than after a full hold: a pin lagging a car in motion is seen in metres, one lagging a slow car
    /// is not. nil: batches go by time alone.
    public var movingDistance: Double?

    /// Creates a policy from its values.
    public init(
        isOff: Bool,
        interval: ClosedRange<TimeInterval>,
        distanceFilter: Double,
        accuracy: LocationAccuracy,
        degraded: Bool,
        movingDistance: Double? = nil
    ) {
        self.isOff = isOff
        self.interval = interval
        self.distanceFilter = distanceFilter
        self.accuracy = accuracy
        self.degraded = degraded
        self.movingDistance = movingDistance
    }

    /// How far a watched car must move in 2 s to be sent every 2 s rather than every 3 s: 22 m, 40 km/h. The pin of
    /// a car at town speed lags it by tens of metres at the top of a 3 s cycle on 3G, the pin of a slower one by
    /// little more than the GPS noise; measured on monaco-3g (docs/BENCHMARKS.md), 22 m brings the freshness p99 to
    /// 4.0 s within 10 % more sends, where 20 m costs 2 % more and 24 m leaves 4.1 s.
    public static let watchedMovingDistance = 22.0

    /// No location at all, for an offline driver.
    public static let off = LocationPolicy(
        isOff: true,
        interval: 0...0,
        distanceFilter: 0,
        accuracy: .hundredMeters,
        degraded: false
    )

    /// The policy for `activity` on a phone at `thermal` with Low Power Mode `lowPower`.
    public init(activity: DriverActivity, thermal: ThermalState, lowPower: Bool) {
        let tier = Self.tier(thermal: thermal, lowPower: lowPower)
        switch activity {
        case .offline:
            self = .off
        case .waitingForTrip:
            self.init(
                isOff: false,
                interval: 10...15,
                distanceFilter: max(50, tier.distanceFilter),
                accuracy: max(.balanced, tier.accuracy),
                degraded: tier.degraded
            )
        case .toPickup, .onTrip:
            self.init(
                isOff: false,
                interval: 2...4,
                distanceFilter: tier.distanceFilter,
                accuracy: tier.accuracy,
                degraded: tier.degraded,
                movingDistance: Self.watchedMovingDistance
            )
        }
    }

    private static func tier(
        thermal: ThermalState,
        lowPower: Bool
    ) -> (accuracy: LocationAccuracy, distanceFilter: Double, degraded: Bool) {
        switch thermal {
        case .serious, .critical:
            return (.hundredMeters, 50, true)
        case .fair:
            return (.nearestTenMeters, 20, true)
        case .nominal:
            return lowPower ? (.nearestTenMeters, 20, true) : (.best, 5, false)
        }
    }
}
