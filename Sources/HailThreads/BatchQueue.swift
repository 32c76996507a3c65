/// The queue behind every thread of Hail's own (the SQLite writer, the database connections, the network
/// loops): work appended from any thread, taken by the thread it feeds a whole batch at a time, and a wake-up
/// asked for once per batch however many appends it holds.
///
/// A value type with no lock and no thread of its own: its owner keeps it under a lock and carries out what its
/// answers say (wake the consumer, or not), so it is tested without threads.
public struct BatchQueue<Work> {
    private var items: [Work] = []
    private var head = 0
    /// A wake-up was asked for and the batch it leads to has not been finished.
    private var wakePending = false

    /// An empty queue; nothing waits to be woken.
    public init() {}

    /// Work waiting to be taken.
    public var count: Int { items.count - head }

    /// True when no work waits.
    public var isEmpty: Bool { count == 0 }

    /// Appends `work`. True when the consumer must be woken for it: the first append since the consumer last
    /// found the queue empty. A consumer already woken takes this one in its batch, or is woken again.
    public mutating func append(_ work: Work) -> Bool {
        items.append(work)
        guard !wakePending else { return false }
        wakePending = true
        return true
    }

    /// Takes everything waiting, in order (the consumer runs it outside the lock).
    public mutating func takeBatch() -> [Work] {
        guard head == 0 else {
            let batch = Array(items[head...])
            items.removeAll(keepingCapacity: true)
            head = 0
            return batch
        }
        // Handed over whole, not copied: the next append starts a new array.
        var batch: [Work] = []
        swap(&batch, &items)
        return batch
    }

    /// Takes the oldest piece of work, for a pool of consumers that share the queue one piece each.
    public mutating func takeOne() -> Work? {
        guard head < items.count else { return nil }
        let work = items[head]
        head += 1
        // Drop the taken prefix once it is most of the storage, so the array does not grow for ever.
        if head > 64, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return work
    }

    /// Called by the consumer after running a batch: true when more work arrived meanwhile and it should go
    /// round again (its wake-up still counts), false when the queue is empty and the next append wakes it.
    public mutating func finishBatch() -> Bool {
        if isEmpty {
            wakePending = false
            return false
        }
        return true
    }

    /// Forgets any wake-up asked for, so the next append asks again (a consumer that starts late, or restarts).
    public mutating func resetWake() { wakePending = false }
}
