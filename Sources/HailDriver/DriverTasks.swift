/// Every task a `DriverModel` starts, so `shutdown()` ends them all: the long-lived ones by name (starting one
/// again replaces it), the one-shot ones in a set each leaves when it ends.
@MainActor
final class DriverTasks {
    /// The long-lived tasks, one of each at most.
    enum Name: Hashable, CaseIterable {
        /// Reads the location source's fixes.
        case fixes
        /// Reads the location source's fix status (current, standing, none).
        case fixStatus
        /// Keeps the driver stream connected.
        case stream
        /// Wakes the location pipeline when its timer is due.
        case pipelineWake
        /// Wakes the outbox when its next retry is due.
        case outboxWake
        /// Closes an offer when it lapses.
        case offerLapse
        /// Samples and sends telemetry.
        case telemetry
        /// Hands policies to the location source, in the order they were decided.
        case policy
        /// Sends the route the navigation follows on the trip under way (the newest replaces one on its way).
        case route
    }

    private var named: [Name: Task<Void, Never>] = [:]
    private var oneShots: [Int: Task<Void, Never>] = [:]
    private var nextID = 0

    /// True while the task named `name` has been started and not cancelled.
    func isRunning(_ name: Name) -> Bool { named[name] != nil }

    /// Starts `operation` under `name`, cancelling the task that had the name, unless `keepingPrevious`: then the
    /// new one may await the previous (passed to it) to keep order.
    func start(
        _ name: Name, keepingPrevious: Bool = false,
        _ operation: @escaping @MainActor (_ previous: Task<Void, Never>?) async -> Void
    ) {
        let previous = named[name]
        if !keepingPrevious { previous?.cancel() }
        named[name] = Task { await operation(previous) }
    }

    /// Cancels the task named `name`, if any.
    func cancel(_ name: Name) {
        named.removeValue(forKey: name)?.cancel()
    }

    /// Starts a one-shot `operation`, tracked until it ends.
    func spawn(_ operation: @escaping @MainActor () async -> Void) {
        nextID += 1
        let id = nextID
        // The task runs on the main actor after this returns, so it is in the set before it can leave it.
        oneShots[id] = Task { [weak self] in
            await operation()
            self?.oneShots[id] = nil
        }
    }

    /// Cancels every task, named or not.
    func cancelAll() {
        for task in named.values { task.cancel() }
        for task in oneShots.values { task.cancel() }
        named.removeAll()
        oneShots.removeAll()
    }
}
