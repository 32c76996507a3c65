/// The WebSockets a draining node holds once its listeners are closed, by who must move first.
///
/// Drivers' streams are where positions come from; every other stream (a rider's or a share viewer's trip, an
/// operator's feed) only watches. The drivers move first: meanwhile the watchers stay on the draining node, whose
/// bus still brings them each position their driver now sends through another node.
public struct DrainStreams: Sendable, Hashable {
    /// The drivers' own streams (`/v1/drivers/me/live`), by connection id.
    public var drivers: [UInt64]
    /// Every other stream, by connection id.
    public var watchers: [UInt64]
    /// The trip each driver stream here serves, where the node knows it (by connection id).
    public var servedTrips: [UInt64: String]
    /// The trip each watcher watches (a rider's or a share viewer's stream; an operator's feed watches none).
    public var watchedTrips: [UInt64: String]

    /// The streams, drivers' and watchers', and the trips that tie a watcher to a driver here.
    public init(
        drivers: [UInt64] = [], watchers: [UInt64] = [], servedTrips: [UInt64: String] = [:],
        watchedTrips: [UInt64: String] = [:]
    ) {
        self.drivers = drivers
        self.watchers = watchers
        self.servedTrips = servedTrips
        self.watchedTrips = watchedTrips
    }

    /// How many there are in all.
    public var count: Int { drivers.count + watchers.count }
}
