/// A first-in, first-out queue that holds at most `capacity` items and refuses the next one: the queue in front
/// of a pool of backend connections, so a backend that stops answering costs a refusal, never a queue that grows
/// until memory runs out.
///
/// A value type with no lock: its owner keeps it under one, so it is tested without threads.
public struct BoundedQueue<Work> {
    /// The storage, taken one item at a time; its wake-ups go unused (the pool wakes its threads itself).
    private var items = BatchQueue<Work>()
    /// The most items it holds at once.
    public let capacity: Int

    /// An empty queue of at most `capacity` items (at least one).
    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Items waiting.
    public var count: Int { items.count }

    /// True when nothing waits.
    public var isEmpty: Bool { items.isEmpty }

    /// Appends `work` and returns true, or returns false and changes nothing when `capacity` items wait.
    public mutating func append(_ work: Work) -> Bool {
        guard items.count < capacity else { return false }
        _ = items.append(work)
        return true
    }

    /// Takes the oldest item.
    public mutating func takeOne() -> Work? { items.takeOne() }
}
