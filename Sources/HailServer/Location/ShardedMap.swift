import Synchronization

/// A dictionary split over independently locked shards, so threads working on different keys (drivers on
/// different loops) do not queue behind one lock: each call locks only its key's shard, for a few
/// dictionary operations.
final class ShardedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Shard: Sendable {
        let entries = Mutex<[Key: Value]>([:])
    }

    private let shards: [Shard]

    /// A map with `shardCount` shards (64 keeps two loops' drivers apart with room to spare).
    init(shardCount: Int = 64) {
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
    }

    private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }

    /// Runs `body` on the value stored for `key` (nil when absent; setting nil removes it), under its shard's lock.
    func withValue<T>(_ key: Key, _ body: (inout Value?) throws -> T) rethrows -> T {
        // In place: the value is neither copied out nor hashed again to be written back.
        try shard(key).entries.withLock { entries in try body(&entries[key]) }
    }

    /// The value stored for `key`.
    subscript(key: Key) -> Value? {
        shard(key).entries.withLock { $0[key] }
    }

    /// Every key, shard by shard (not a snapshot of one instant).
    var keys: [Key] {
        shards.flatMap { shard in shard.entries.withLock { Array($0.keys) } }
    }

    /// Removes every entry for which `shouldRemove` is true; returns how many went.
    @discardableResult
    func removeAll(where shouldRemove: (Key, Value) -> Bool) -> Int {
        var removed = 0
        for shard in shards {
            shard.entries.withLock { entries in
                let before = entries.count
                entries = entries.filter { !shouldRemove($0.key, $0.value) }
                removed += before - entries.count
            }
        }
        return removed
    }

    /// Entries in all shards.
    var count: Int { shards.reduce(0) { total, shard in total + shard.entries.withLock { $0.count } } }
}
