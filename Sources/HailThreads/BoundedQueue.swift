/// A first-in, first-out queue that holds at most `capacity` items and refuses the next one: the queue in front
/// of a pool of backend connections, so a backend that stops answering costs a refusal, never a queue that grows
/// until memory runs out.
///
/// A value type with no lock: its owner keeps it under one, so it is tested without threads.
public struct BoundedQueue<Work> {
    private var items: [Work] = []
    private var head = 0
    /// The most items it holds at once.
    public let capacity: Int

    /// An empty queue of at most `capacity` items (at least one).
    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Items waiting.
    public var count: Int { items.count - head }

    /// True when nothing waits.
    public var isEmpty: Bool { count == 0 }

    /// Appends `work` and returns true, or returns false and changes nothing when `capacity` items wait.
    public mutating func append(_ work: Work) -> Bool {
        guard count < capacity else { return false }
        items.append(work)
        return true
    }

    /// Takes the oldest item.
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
}
