/// The most a device family may ask of its location hardware: no finer accuracy and no smaller distance filter
/// than these, whatever activity, heat or Low Power would allow.
///
/// A remote flag sets it per cohort (`GET /v1/config`), so a phone model that runs hot under full GPS can be
/// cooled in minutes without a release. The cap only ever coarsens: a policy already coarser on a dial keeps
/// its own value there.
public struct LocationPolicyCap: Codable, Sendable, Hashable {
    /// The finest accuracy the device may ask for.
    public var finestAccuracy: LocationAccuracy
    /// The smallest distance filter the device may use, metres.
    public var minimumDistanceFilterMeters: Double

    /// Creates a cap.
    public init(finestAccuracy: LocationAccuracy, minimumDistanceFilterMeters: Double) {
        self.finestAccuracy = finestAccuracy
        self.minimumDistanceFilterMeters = minimumDistanceFilterMeters
    }
}

extension LocationPolicy {
    /// This policy held to `cap`: the coarser accuracy and the larger distance filter of the two. The interval
    /// is kept (the rider's freshness budget is about time). A policy the cap changed counts as degraded, since
    /// its positions are coarser than the phone could give, and dispatch should know. Off stays off.
    public func capped(by cap: LocationPolicyCap?) -> LocationPolicy {
        guard let cap, !isOff else { return self }
        let accuracy = max(self.accuracy, cap.finestAccuracy)
        let distanceFilter = max(self.distanceFilter, cap.minimumDistanceFilterMeters)
        let changed = accuracy != self.accuracy || distanceFilter != self.distanceFilter
        return LocationPolicy(
            isOff: false, interval: interval, distanceFilter: distanceFilter, accuracy: accuracy,
            degraded: degraded || changed, movingDistance: movingDistance)
    }
}
