import Foundation
import HailTesting

/// Values handed from the code under test to the test, in order; `next(within:)` waits for one with a
/// real-time deadline that only matters when the value never comes (no sleeping).
actor Mailbox<Value: Sendable> {
    private var values: [Value] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<Value?, Never>)?
    private var nextID = 0

    func put(_ value: Value) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: value)
        } else {
            values.append(value)
        }
    }

    var pending: Int { values.count }

    func next(within seconds: Double = 30, _ what: String = "value") async throws -> Value {
        if !values.isEmpty { return values.removeFirst() }
        nextID += 1
        let id = nextID
        let value = await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { Task { await self.expire(id) } }
        }
        guard let value else { throw HarnessError(description: "no \(what) within \(seconds) s") }
        return value
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
