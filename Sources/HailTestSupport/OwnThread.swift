import Foundation

/// Runs blocking work (reading a child's output to its end, waiting for it to exit, a socket read) on a thread of
/// its own and awaits the result. Blocking a task instead holds one of the cooperative pool's threads, which are as
/// many as the cores: two such waits at once on a two-core machine stop every other task in the process, the
/// server's and the simulated apps' included.
public func onItsOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.start()
    }
}
