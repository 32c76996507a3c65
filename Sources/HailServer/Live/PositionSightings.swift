import Foundation
import Synchronization

/// Which trips' positions reached this node's watchers, and when: noted only while a drain asks (`watch()`), so the
/// bus's hot path pays one relaxed load otherwise. The drain takes a trip's positions arriving after its driver's
/// stream here closed as the evidence that the driver streams again from another node (`DrainMachine`).
final class PositionSightings: Sendable {
    private let watching = Atomic<Bool>(false)
    private let seen = Mutex<[String: Date]>([:])

    /// From now on, arrivals are noted.
    func watch() { watching.store(true, ordering: .relaxed) }

    /// A position of `tripID` reached a watcher's stream here at `now` (called on the bus's delivering thread).
    func saw(_ tripID: String, at now: @autoclosure () -> Date) {
        guard watching.load(ordering: .relaxed) else { return }
        let at = now()
        seen.withLock { $0[tripID] = at }
    }

    /// The trips seen since the last call, each with its latest arrival.
    func take() -> [String: Date] {
        seen.withLock { seen in
            defer { seen = [:] }
            return seen
        }
    }
}
