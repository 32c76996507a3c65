/// The pending deadlines of backend calls and requests, on a coarse clock: pure, so the timer thread that drives it
/// (`DeadlineTimer`) and its tests only hand it instants.
///
/// A deadline is due at the first `collectDue` at or after its instant. Adding and removing are a dictionary
/// insert and remove, which is all a request whose work answers in time pays.
struct DeadlineBook<Fire> {
    private var pending: [UInt64: (due: ContinuousClock.Instant, fire: Fire)] = [:]
    private var nextID: UInt64 = 0

    /// Deadlines added and not yet removed or collected.
    var count: Int { pending.count }

    /// Adds a deadline due at `due`; returns its id, for `remove`.
    mutating func add(due: ContinuousClock.Instant, _ fire: Fire) -> UInt64 {
        nextID += 1
        pending[nextID] = (due, fire)
        return nextID
    }

    /// Forgets deadline `id` (its race was won by the work); nothing happens when it already fired.
    mutating func remove(_ id: UInt64) {
        pending[id] = nil
    }

    /// Takes every deadline due at `now`, earliest first, for the caller to fire outside its lock.
    mutating func collectDue(now: ContinuousClock.Instant) -> [Fire] {
        let due = pending.filter { $0.value.due <= now }
        for id in due.keys { pending[id] = nil }
        return due.sorted { ($0.value.due, $0.key) < ($1.value.due, $1.key) }.map(\.value.fire)
    }
}
