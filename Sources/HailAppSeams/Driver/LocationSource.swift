import HailCore

/// Where the driver's fixes come from: the phone's location hardware, a replayed trace, a simulated drive.
///
/// The runtime applies the location policy through `apply`; a source honours at least its distance filter
/// (a waiting driver who stands still produces nothing), as CoreLocation's `distanceFilter` does.
public protocol LocationSource: Sendable {
    /// The fixes as they are taken, oldest first; the stream finishes when the source has no more.
    func fixes() -> AsyncStream<LocationPoint>
    /// Adopts `policy` (accuracy, distance filter, or off) for the fixes to come.
    func apply(_ policy: LocationPolicy) async
    /// What the hardware says about its fix whenever that changes: fixes coming, standing still with a
    /// fix, or no fix. A source that cannot tell finishes the stream at once, and its fixes count as
    /// current.
    func fixStatus() -> AsyncStream<FixStatus>
    /// A fix taken now, or nil when none can be had (no fix, or the source takes none on demand).
    func currentFix() async -> LocationPoint?
}

extension LocationSource {
    /// Cannot tell: the stream finishes at once.
    public func fixStatus() -> AsyncStream<FixStatus> { AsyncStream { $0.finish() } }

    /// Takes no fix on demand.
    public func currentFix() async -> LocationPoint? { nil }
}
