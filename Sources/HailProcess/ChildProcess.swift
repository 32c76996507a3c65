import CSpawn
import Foundation
import Synchronization

/// A program Hail starts (a `hail server` for a benchmark, a throwaway `redis-server`, a tool): it begins with
/// every signal unblocked and at its default action, whatever the starting thread had (a libdispatch or
/// cooperative-pool thread blocks SIGTERM, and `signal(SIGTERM, SIG_IGN)` survives exec), sees none of Hail's
/// descriptors but the three it is given, and is sent `deathSignal` when Hail's process ends, however it ends.
///
/// Every child Hail starts, in its tests too, goes through this type and never through Foundation's `Process`:
/// on Linux (Swift 6.3.1) swift-corelibs-foundation's `run()` of a `Process` crashes now and then with a SIGSEGV in
/// memcpy, because `findMaximumOpenFromProcSelfFD()` copies the whole 256-byte `d_name` of each `/proc/self/fd`
/// entry and reads past the end of glibc's readdir buffer (fixed upstream by swift-corelibs-foundation PR #5472).
/// `make lint` fails when a `Process` is created in Sources or Tests.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: Int32
    private let state = Mutex(State())
    private let exited = DispatchGroup()

    private struct State {
        var termination: Termination?
        /// Tasks waiting for the end, by a number of their own so a cancelled one can be taken out.
        var waiters: [UInt64: CheckedContinuation<Termination?, Never>] = [:]
        var nextWaiter: UInt64 = 0

        mutating func takeWaiterNumber() -> UInt64 {
            nextWaiter += 1
            return nextWaiter
        }
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
    }

    /// Starts `executable` (an absolute path) with `arguments`, this process's environment with `environment`
    /// laid over it, and the given descriptors as its standard input, output and error (nil: /dev/null).
    /// The parent keeps its own copies of the descriptors; close a pipe's write end after this returns.
    /// `processors`, when not empty, are the only ones the child and its threads may run on (Linux; ignored
    /// elsewhere): a benchmark gives each of several servers on one machine its own cores.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
        deathSignal: Int32 = SIGTERM, processors: [Int] = []
    ) throws(ChildProcessError) -> ChildProcess {
        try start(
            executable, arguments, environment: environment, standardInput: standardInput,
            standardOutput: standardOutput, standardError: standardError, deathSignal: deathSignal,
            processors: processors, onSpawnerThread: true)
    }

    /// `start`, forking on the calling thread instead when `onSpawnerThread` is false (tests: the death signal
    /// then comes when the calling thread ends).
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        standardInput: Int32?, standardOutput: Int32?, standardError: Int32?, deathSignal: Int32,
        processors: [Int] = [], onSpawnerThread: Bool
    ) throws(ChildProcessError) -> ChildProcess {
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
            .map { "\($0.key)=\($0.value)" }
        let descriptors = (standardInput ?? -1, standardOutput ?? -1, standardError ?? -1)
        // The death signal is tied to the thread that forks, so every fork happens on one thread that lives as
        // long as the process; a cooperative-pool thread retiring would otherwise take its children with it.
        let fork = { @Sendable () -> Result<Int32, ChildProcessError> in
            spawn(executable, [executable] + arguments, variables, descriptors, deathSignal, processors.map(Int32.init))
        }
        let result = onSpawnerThread ? SpawnerThread.run(fork) : fork()
        let pid = try result.get()
        let child = ChildProcess(pid: pid)
        child.reapWhenDone()
        return child
    }

    private init(pid: Int32) {
        self.pid = pid
        exited.enter()
    }

    /// Unblocks every signal on the calling thread: for a program's first line, when whoever started it may have
    /// passed on a mask blocking SIGTERM (threads started afterwards inherit the cleared one).
    public static func unblockSignalsOfThisThread() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    /// True until the child has ended and been reaped.
    public var isRunning: Bool { state.withLock { $0.termination == nil } }

    /// How it ended, or nil while it runs.
    public var termination: Termination? { state.withLock { $0.termination } }

    /// Sends `number` to the child unless it has already been reaped (its pid may belong to another process).
    public func send(_ number: Int32) {
        state.withLock { if $0.termination == nil { _ = kill(pid, number) } }
    }

    /// Waits for the child to end, however long that takes (cancelling the task does not end the wait).
    public func waitForExit() async -> Termination {
        // Only a cancellation handler resumes a waiter with nil, and this wait has none.
        await wait(id: state.withLock { $0.takeWaiterNumber() }, cancellable: false) ?? .exited(-1)
    }

    /// Waits for the child to end, or for the calling task to be cancelled (nil then, the child untouched): for a
    /// wait that races others, such as a server's "listening" line against its exit.
    public func waitForExitUnlessCancelled() async -> Termination? {
        let id = state.withLock { $0.takeWaiterNumber() }
        return await withTaskCancellationHandler {
            await wait(id: id, cancellable: true)
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    private func wait(id: UInt64, cancellable: Bool) async -> Termination? {
        await withCheckedContinuation { continuation in
            // Under the lock the cancellation handler takes: a task cancelled before this point never waits.
            let answer = state.withLock { state -> Termination?? in
                if let ended = state.termination { return .some(ended) }
                if cancellable, Task.isCancelled { return .some(nil) }
                state.waiters[id] = continuation
                return .none
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Blocks the calling thread until the child ends.
    public func waitUntilExit() -> Termination {
        exited.wait()
        return state.withLock { $0.termination } ?? .exited(-1)
    }

    /// SIGTERM, then SIGKILL if it is still running after `grace`; returns once it has ended.
    public func stop(grace: Duration = .seconds(10)) async -> Termination {
        send(SIGTERM)
        let killer = Task {
            try await Task.sleep(for: grace)
            send(SIGKILL)
        }
        let ended = await waitForExit()
        killer.cancel()
        return ended
    }

    /// One thread per child blocked in waitpid on that pid only, so no other code's children are reaped.
    private func reapWhenDone() {
        let pid = pid
        let thread = Thread { [self] in
            // Wait without reaping, then reap under the lock `send` takes: a signal never reaches a reused pid.
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
            let (ended, waiters) = state.withLock { state in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                let signalNumber = status & 0x7f
                let ended: Termination =
                    signalNumber == 0 ? .exited((status >> 8) & 0xff) : .signalled(signalNumber)
                state.termination = ended
                defer { state.waiters = [:] }
                return (ended, Array(state.waiters.values))
            }
            exited.leave()
            for waiter in waiters { waiter.resume(returning: ended) }
        }
        thread.name = "hail-reap-\(pid)"
        thread.start()
    }

    private static func spawn(
        _ path: String, _ arguments: [String], _ environment: [String], _ descriptors: (Int32, Int32, Int32),
        _ deathSignal: Int32, _ processors: [Int32]
    ) -> Result<Int32, ChildProcessError> {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let problem = cspawn_start(
            &pid, path, argv, envp, descriptors.0, descriptors.1, descriptors.2, deathSignal, processors,
            Int32(processors.count))
        guard problem == 0 else {
            return .failure(ChildProcessError(executable: path, errno: problem))
        }
        return .success(pid)
    }
}

/// A program that could not be started.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    /// The program's path.
    public let executable: String
    /// Why (an errno value from fork or exec).
    public let errno: Int32

    /// "cannot start PATH: REASON".
    public var description: String { "cannot start \(executable): \(String(cString: strerror(errno)))" }
}
