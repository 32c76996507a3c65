import Dispatch

/// Values handed from the code under test (or a child's output) to the test, in order. `next` waits for one with a
/// real-time failure deadline that only matters when the value never comes, never a pause; `finish` says no more
/// will come.
public actor Mailbox<Value: Sendable> {
    private var values: [Value] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<Value?, Never>)?
    private var nextID = 0
    private var finished = false

    /// An empty mailbox.
    public init() {}

    /// Hands `value` to the `next` waiting for one, or keeps it for the next call.
    public func put(_ value: Value) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: value)
        } else {
            values.append(value)
        }
    }

    /// No more values: once those kept are taken, `next` gets none at once.
    public func finish() {
        finished = true
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }

    /// How many values were put and not yet taken.
    public var pending: Int { values.count }

    /// The next value; throws `HarnessError` naming `what` when none comes within `seconds` or the sender finished.
    public func next(within seconds: Double = 30, _ what: String = "value") async throws -> Value {
        guard let value = await nextOrNil(within: seconds) else {
            throw HarnessError(
                description: "no \(what) within \(seconds) s" + (finished ? " (the sender finished)" : ""))
        }
        return value
    }

    /// The next value, or nil when the sender finished or `seconds` passed first.
    public func nextOrNil(within seconds: Double) async -> Value? {
        if !values.isEmpty { return values.removeFirst() }
        if finished { return nil }
        nextID += 1
        let id = nextID
        return await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { Task { await self.expire(id) } }
        }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
