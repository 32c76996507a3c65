import Dispatch
import Foundation

/// Runs short actions at their deadlines on a thread of its own, for the waits that bound a backend call or a
/// request: that a deadline fires on time must never depend on a thread the work it bounds may hold.
///
/// `DispatchQueue.global().asyncAfter` does not give that: its block runs on the global concurrent pool, which on
/// Linux is also Swift concurrency's cooperative pool, as wide as the machine has cores. Under load (route searches,
/// map matches and JSON on a 2-core node) a due deadline waited there behind that work, and a request bounded at
/// 4 s was answered at 5.4 s. An action here must be short and must not block: it resumes a continuation, and
/// whatever follows runs where that continuation's task runs.
public final class DeadlineTimer: Sendable {
    /// The process's timer, started on first use.
    public static let shared = DeadlineTimer(name: "hail-deadlines")

    private struct Entry {
        let due: ContinuousClock.Instant
        let order: UInt64
        let action: @Sendable () -> Void

        func precedes(_ other: Entry) -> Bool { due < other.due || (due == other.due && order < other.order) }
    }

    private struct State {
        /// A binary min-heap on (due, order): the next action to run is at the root.
        var heap: [Entry] = []
        var nextOrder: UInt64 = 0
    }

    private let state = Locked(State())
    // Signalled when a new earliest deadline arrives; a spurious signal only costs the thread a look.
    private let wake = DispatchSemaphore(value: 0)

    /// A timer with its own thread named `name`.
    public init(name: String) {
        let thread = Thread { [self] in self.serve() }
        thread.name = name
        thread.start()
    }

    /// Runs `action` on the timer's thread once `delay` has passed (at once for a delay of zero or less; up to
    /// `slack` early, with others due then).
    public func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let due = ContinuousClock.now + delay
        let isEarliest = state.withLock { state -> Bool in
            let entry = Entry(due: due, order: state.nextOrder, action: action)
            state.nextOrder &+= 1
            state.heap.append(entry)
            Self.siftUp(&state.heap, from: state.heap.count - 1)
            return state.heap[0].order == entry.order
        }
        if isEarliest { wake.signal() }
    }

    /// Actions waiting for their deadline.
    public var pending: Int { state.withLock { $0.heap.count } }

    /// Actions due this soon run with those due now: every backend call sets a deadline, and most of them are met
    /// long before it, so waking for each one alone would cost the thread thousands of wake-ups a second under load.
    static let slack = Duration.milliseconds(1)

    private func serve() {
        while true {
            let now = ContinuousClock.now
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                var due: [@Sendable () -> Void] = []
                while let first = state.heap.first, first.due <= now + Self.slack {
                    due.append(Self.popRoot(&state.heap).action)
                }
                return (due, state.heap.first?.due)
            }
            for action in due { action() }
            guard let next else {
                wake.wait()
                continue
            }
            let (seconds, attoseconds) = (next - now).components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            _ = wake.wait(timeout: .now() + .nanoseconds(Int(max(0, nanoseconds))))
        }
    }

    private static func siftUp(_ heap: inout [Entry], from index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popRoot(_ heap: inout [Entry]) -> Entry {
        let root = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return root }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return root }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
