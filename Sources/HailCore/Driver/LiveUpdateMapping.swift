/// How the phone's live location updates become the `LocationSource` seam's fixes and fix status: the decisions
/// of the iOS 17+ source (`CLLocationUpdate.liveUpdates()`), pure, so they are tested here and the simulated
/// phones can go through the very same mapping.
///
/// A moving phone's fixes are `current`. A phone that says it stands still is `standing`, and the update's own
/// location is delivered as the fix taken standing, because the pipeline believes a standing phone only of a fix it
/// took standing (and CoreLocation sends nothing more until the car moves: without it, a car waiting at the pickup
/// would age to "locating" on the rider's screen). No fix to be had, or location no longer allowed, is
/// `unavailable`, so the last fix is never repeated as fresh. An update that says nothing (a request for
/// authorization in progress) changes nothing. Live updates know no distance filter, so the mapping applies the
/// policy's, as CoreLocation's `distanceFilter` would (the `LocationSource` contract).
public struct LiveUpdateMapping: Sendable, Hashable {
    /// What one update gives the `LocationSource`.
    public struct Output: Sendable, Hashable {
        /// A fix to deliver, if any.
        public var fix: LocationPoint?
        /// The new fix status, when it changed.
        public var status: FixStatus?

        /// Creates an output.
        public init(fix: LocationPoint? = nil, status: FixStatus? = nil) {
            self.fix = fix
            self.status = status
        }
    }

    /// The fix status last reported, nil before the first.
    public private(set) var status: FixStatus?
    private var lastDelivered: LocationPoint?

    /// A mapping that has reported nothing yet.
    public init() {}

    /// What `update` gives: a fix to deliver and a status to report, each when there is one; a moving fix less
    /// than `distanceFilter` metres from the last one delivered is held back.
    public mutating func map(_ update: LiveLocationUpdate, distanceFilter: Double = 0) -> Output {
        if update.authorizationDenied || update.locationUnavailable {
            return Output(status: report(.unavailable))
        }
        guard let location = update.location else { return Output() }
        let status = report(update.stationary ? .standing : .current)
        var fix: LocationPoint? = location
        if location == lastDelivered {
            // A stationary update repeats the location it stopped at: delivered once.
            fix = nil
        } else if !update.stationary && status == nil, let last = lastDelivered,
            last.coordinate.distance(to: location.coordinate) < distanceFilter
        {
            fix = nil
        }
        if let fix { lastDelivered = fix }
        return Output(fix: fix, status: status)
    }

    private mutating func report(_ new: FixStatus) -> FixStatus? {
        guard new != status else { return nil }
        status = new
        return new
    }
}
