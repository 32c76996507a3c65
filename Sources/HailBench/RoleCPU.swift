import Foundation
import Synchronization

/// The CPU a benchmark's processes used, by role ("load generator", "node 1", "nginx"), sampled from /proc while
/// they come and go: a node restarted under the same role keeps adding to it, and a process that exited keeps what
/// it used up to its last sample. Shares of the machine, so a run says how much of it the load generator took.
final class RoleCPU: Sendable {
    private struct State {
        /// The last reading of each process, by pid.
        var last: [Int32: Double] = [:]
        /// CPU seconds by role.
        var totals: [String: Double] = [:]
    }

    private let state = Mutex(State())
    private let roles: @Sendable () -> [(role: String, pids: [Int32])]
    private let stopped = Atomic<Bool>(false)

    /// Samples the processes `roles` names (asked again at each sample) every `interval` until `stop`.
    init(
        every interval: Duration = .milliseconds(250), roles: @escaping @Sendable () -> [(role: String, pids: [Int32])]
    ) {
        self.roles = roles
        Task.detached { [self] in
            while !stopped.load(ordering: .relaxed) {
                sample()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// CPU seconds by role so far.
    func totals() -> [String: Double] {
        sample()
        return state.withLock { $0.totals }
    }

    /// Stops sampling.
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Percent of one core each role used between two `totals()` taken `seconds` apart.
    static func percent(from earlier: [String: Double], to later: [String: Double], seconds: Double) -> [String: Double]
    {
        guard seconds > 0 else { return [:] }
        return later.reduce(into: [:]) { result, entry in
            result[entry.key] = ((entry.value - (earlier[entry.key] ?? 0)) / seconds * 100).rounded()
        }
    }

    private func sample() {
        let readings = roles().map { role in
            (role.role, role.pids.compactMap { pid in ProcessUsage.of(pid: pid).map { (pid, $0.cpuSeconds) } })
        }
        state.withLock { state in
            for (role, processes) in readings {
                for (pid, seconds) in processes {
                    let delta = seconds - (state.last[pid] ?? 0)
                    state.last[pid] = seconds
                    if delta > 0 { state.totals[role, default: 0] += delta }
                }
            }
        }
    }

    /// A process and its children (nginx's master and workers), from /proc/PID/task/PID/children.
    static func withChildren(_ pid: Int32) -> [Int32] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return [pid] + text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }
}
