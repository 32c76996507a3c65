import Foundation

/// Runs blocking work (a socket client loop) on dedicated threads, so it never parks the cooperative
/// pool that the in-process server's tasks need.
enum BlockingThreads {
    /// Runs `work(index)` for each index in `0..<count` on its own thread; results in index order.
    static func run<Result: Sendable>(count: Int, _ work: @escaping @Sendable (Int) -> Result) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            for index in 0..<count {
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Result), Never>) in
                        Thread { continuation.resume(returning: (index, work(index))) }.start()
                    }
                }
            }
            var results: [(Int, Result)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
