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
}
