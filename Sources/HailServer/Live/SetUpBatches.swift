/// Which driver streams' setups run together: a group commit for the backend reads a stream needs when it opens (its
/// active trip, its shared state, its live offer).
///
/// A node that takes over a dead node's drivers sees thousands of streams open within a second. Setting each up on
/// its own costs a few PostgreSQL and Redis round trips apiece, queued behind each other on a few connections:
/// the queue overflowed (`hail-redis: 1024 waiting`), those streams closed with 1013 (4013 now) and came back to do it all
/// again. Here a setup asked for while `maxRunning` batches are at work waits, and the next batch takes every
/// setup waiting by then, up to `maxBatch`: alone, a stream is set up at once; in a storm, hundreds share each
/// round trip. Pure: the runtime (`DriverSetUps`) carries out the actions.
struct SetUpBatches<Ticket: Hashable & Sendable>: Sendable {
    /// What the runtime does next.
    enum Action: Sendable, Equatable {
        /// Nothing: the setups wait for a running batch to finish.
        case wait
        /// Set these up together, as one batch.
        case start([Ticket])
    }

    /// The most setups one batch takes.
    let maxBatch: Int
    /// The most batches at work at once.
    let maxRunning: Int
    /// Setups asked for and not yet in a batch, oldest first.
    private(set) var waiting: [Ticket] = []
    /// Batches at work.
    private(set) var running = 0

    /// A queue starting batches of at most `maxBatch`, at most `maxRunning` at once (each at least 1).
    init(maxBatch: Int, maxRunning: Int) {
        self.maxBatch = max(1, maxBatch)
        self.maxRunning = max(1, maxRunning)
    }

    /// A stream asked for its setup.
    mutating func arrived(_ ticket: Ticket) -> Action {
        waiting.append(ticket)
        return next()
    }

    /// A batch the runtime started is done.
    mutating func finished() -> Action {
        running = max(0, running - 1)
        return next()
    }

    private mutating func next() -> Action {
        guard running < maxRunning, !waiting.isEmpty else { return .wait }
        let batch = Array(waiting.prefix(maxBatch))
        waiting.removeFirst(batch.count)
        running += 1
        return .start(batch)
    }
}
