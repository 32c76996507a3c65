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

    /// The streams, drivers' and watchers'.
    public init(drivers: [UInt64] = [], watchers: [UInt64] = []) {
        self.drivers = drivers
        self.watchers = watchers
    }

    /// How many there are in all.
    public var count: Int { drivers.count + watchers.count }
}
