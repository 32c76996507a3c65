import HailAppSeams
import HailCore
import HailThreads

/// A `LocationSource` a test (or a preview) feeds by hand; it records the policies the runtime applied.
public final class ScriptedLocationSource: LocationSource {
    private let stream: AsyncStream<LocationPoint>
    private let continuation: AsyncStream<LocationPoint>.Continuation
    private let applied = Locked<[LocationPolicy]>([])
    private let onDemand = Locked<LocationPoint?>(nil)

    /// A source with no fix yet.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: LocationPoint.self)
    }

    /// The fixes fed with `yield`.
    public func fixes() -> AsyncStream<LocationPoint> { stream }

    /// Records `policy`.
    public func apply(_ policy: LocationPolicy) async { applied.withLock { $0.append(policy) } }

    /// The policies applied, oldest first.
    public var policies: [LocationPolicy] { applied.withLock { $0 } }

    /// Feeds one fix.
    public func yield(_ point: LocationPoint) { continuation.yield(point) }

    /// The fix the source gives when asked for one now; nil (the default) gives none.
    public func setCurrentFix(_ point: LocationPoint?) { onDemand.withLock { $0 = point } }

    /// The fix set with `setCurrentFix`.
    public func currentFix() async -> LocationPoint? { onDemand.withLock { $0 } }
}
