import HailCore
import HailDriver
import Synchronization

/// A location source the test feeds by hand; it records the policies the runtime applied.
final class ScriptedLocationSource: LocationSource {
    private let stream: AsyncStream<LocationPoint>
    private let continuation: AsyncStream<LocationPoint>.Continuation
    private let applied = Mutex<[LocationPolicy]>([])
    private let onDemand = Mutex<LocationPoint?>(nil)

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: LocationPoint.self)
    }

    func fixes() -> AsyncStream<LocationPoint> { stream }

    func apply(_ policy: LocationPolicy) async { applied.withLock { $0.append(policy) } }

    var policies: [LocationPolicy] { applied.withLock { $0 } }

    func yield(_ point: LocationPoint) { continuation.yield(point) }

    /// The fix the source gives when asked for one now; nil (the default) gives none.
    func setCurrentFix(_ point: LocationPoint?) { onDemand.withLock { $0 = point } }

    func currentFix() async -> LocationPoint? { onDemand.withLock { $0 } }
}
