/// The two bounded send queues of one WebSocket connection; pure value logic, locked by its owner.
struct OutboundQueue {
    /// What happened to a message handed to `enqueue`.
    enum Outcome: Equatable {
        /// Queued; nothing was lost.
        case queued
        /// Queued after the oldest queued disposable message was dropped to make room.
        case droppedOldest
        /// The essential queue was full: the connection must close as a slow consumer.
        case overflow
    }

    private var essential = Ring()
    private var disposable = Ring()
    let essentialLimit: Int
    let disposableLimit: Int

    init(essentialLimit: Int, disposableLimit: Int) {
        self.essentialLimit = max(1, essentialLimit)
        self.disposableLimit = max(1, disposableLimit)
    }

    mutating func enqueue(_ message: SharedMessage, priority: MessagePriority) -> Outcome {
        switch priority {
        case .essential:
            guard essential.count < essentialLimit else { return .overflow }
            essential.append(message)
            return .queued
        case .disposable:
            var outcome = Outcome.queued
            if disposable.count >= disposableLimit {
                _ = disposable.popFirst()
                outcome = .droppedOldest
            }
            disposable.append(message)
            return outcome
        }
    }

    /// The next message to write: essential ones first, they carry state the peer must not miss.
    mutating func next() -> SharedMessage? {
        essential.popFirst() ?? disposable.popFirst()
    }

    /// The next essential message only (used while closing: queued positions are not worth flushing).
    mutating func nextEssential() -> SharedMessage? {
        essential.popFirst()
    }

    /// Forgets every queued message.
    mutating func removeAll() {
        essential = Ring()
        disposable = Ring()
    }

    var isEmpty: Bool { essential.count == 0 && disposable.count == 0 }
    var essentialCount: Int { essential.count }
    var disposableCount: Int { disposable.count }

    /// A FIFO with O(1) pops that compacts its storage once half of it is consumed.
    private struct Ring {
        private var items: [SharedMessage] = []
        private var head = 0

        var count: Int { items.count - head }

        mutating func append(_ message: SharedMessage) { items.append(message) }

        mutating func popFirst() -> SharedMessage? {
            guard head < items.count else { return nil }
            let first = items[head]
            head += 1
            if head > 32 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            return first
        }
    }
}
