import Synchronization

/// Sends one client loop's `MovingDriver`s a batch a second each, driver i at its offset into every second (spread
/// evenly over the second, as real phones are not in step), from that loop's repeating task.
final class SecondPacer: Sendable {
    private let drivers: [(driver: MovingDriver, offset: Duration)]
    private let start: ContinuousClock.Instant
    /// The next driver to send and the second it is in (only the loop thread takes it).
    private let cursor = Mutex((round: 0, position: 0))
    private let halted = Atomic<Bool>(false)

    /// A pacer for `drivers`, each with its offset, from `start`.
    init(drivers: [(MovingDriver, Duration)], start: ContinuousClock.Instant) {
        self.drivers = drivers.sorted { $0.1 < $1.1 }.map { (driver: $0.0, offset: $0.1) }
        self.start = start
    }

    /// True once `stop()` was called.
    var stopped: Bool { halted.load(ordering: .relaxed) }

    /// Stops sending.
    func stop() { halted.store(true, ordering: .relaxed) }

    /// Sends every batch due by `now`; false when there is nothing to pace.
    func sendDue(at now: ContinuousClock.Instant) -> Bool {
        guard !drivers.isEmpty else { return false }
        cursor.withLock { cursor in
            while true {
                let due = start + .seconds(cursor.round) + drivers[cursor.position].offset
                if due > now { return }
                drivers[cursor.position].driver.sendNext()
                cursor.position += 1
                if cursor.position == drivers.count {
                    cursor.position = 0
                    cursor.round += 1
                }
            }
        }
        return true
    }
}
