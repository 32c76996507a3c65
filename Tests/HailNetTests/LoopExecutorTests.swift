import HailTesting
import Synchronization
import Testing

@testable import HailNet

/// An actor whose jobs run on an lws loop thread.
actor LoopBound {
    nonisolated let executor: LoopExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private var count = 0

    init(executor: LoopExecutor) { self.executor = executor }

    func increment() -> (onLoop: Bool, count: Int) {
        count += 1
        return (executor.isOnLoopThread, count)
    }
}

@Suite struct LoopExecutorTests {
    @Test func actorJobsRunOnTheLoopThreadInOrder() async throws {
        let client = try WebSocketClient()
        let bound = LoopBound(executor: client.executor)
        #expect(client.executor.isOnLoopThread == false)
        let results = await withTaskGroup(of: (onLoop: Bool, count: Int).self) { group in
            for _ in 0..<500 { group.addTask { await bound.increment() } }
            var all: [(onLoop: Bool, count: Int)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.allSatisfy { $0.onLoop })
        #expect(Set(results.map(\.count)) == Set(1...500))
        await client.shutdown()
        // After the loop has ended, jobs still run (drained by whoever enqueues them).
        #expect(await bound.increment().count == 501)
    }

    @Test func aRepeatingTaskRunsOnTheLoopUntilItSaysStop() async throws {
        let client = try WebSocketClient()
        let first = Mutex<(calls: Int, offLoop: Int)>((0, 0))
        let executor = client.executor
        try await within {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                client.scheduleRepeated(every: .milliseconds(1)) {
                    let calls = first.withLock { state in
                        state.calls += 1
                        if !executor.isOnLoopThread { state.offLoop += 1 }
                        return state.calls
                    }
                    if calls == 5 { done.resume() }
                    return calls < 5
                }
            }
            // Twenty more ticks of a second task on the same loop: the first, had it stayed armed, would have
            // run again meanwhile.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let second = Mutex(0)
                client.scheduleRepeated(every: .milliseconds(1)) {
                    let calls = second.withLock { count in
                        count += 1
                        return count
                    }
                    if calls == 20 { done.resume() }
                    return calls < 20
                }
            }
        }
        #expect(first.withLock { $0.calls } == 5)
        #expect(first.withLock { $0.offLoop } == 0)
        await client.shutdown()
    }

    @Test func anHTTPHandlerRunsOnItsLoopAndAnUpgradeDecisionOnThePool() async throws {
        let serverBox = Mutex<NetServer?>(nil)
        let sawLoop = Mutex<[Bool]>([])
        let server = NetServer(
            http: { _ in
                sawLoop.withLock { $0.append(serverBox.withLock { $0 }?.isOnLoopThread ?? true) }
                return .text("ok")
            },
            webSocket: { _ in
                sawLoop.withLock { $0.append(serverBox.withLock { $0 }?.isOnLoopThread ?? true) }
                return .accept { _ in }
            })
        serverBox.withLock { $0 = server }
        let port = try server.start()
        let response = try await onItsOwnThread {
            let socket = try RawSocket(port: port)
            try socket.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try socket.readResponse()
        }
        #expect(response.status == 200)
        let client = try WebSocketClient()
        let info = try await within {
            let connection = try await client.connect(to: "ws://127.0.0.1:\(port)/")
            return await connection.closed()
        }
        #expect(info.code == 1000)
        #expect(sawLoop.withLock { $0 } == [true, false])
        await client.shutdown()
        await server.shutdown()
    }
}
