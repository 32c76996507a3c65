import Foundation

/// CPU time and memory of this process, read from Linux's /proc; nil where /proc is missing.
struct ProcessUsage: Sendable {
    /// User plus system CPU seconds used by every thread of this process so far.
    let cpuSeconds: Double
    /// Resident set size now, in bytes (VmRSS).
    let residentBytes: Int
    /// Highest resident set size so far, in bytes (VmHWM).
    let peakResidentBytes: Int

    /// Reads /proc/self/stat and /proc/self/status.
    static func current() -> ProcessUsage? { read("self") }

    /// The same for another process (a child server), from /proc/PID.
    static func of(pid: Int32) -> ProcessUsage? { read(String(pid)) }

    /// Reads /proc/`process`/stat and /proc/`process`/status.
    private static func read(_ process: String) -> ProcessUsage? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let closing = stat.lastIndex(of: ")")
        else { return nil }
        // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed,
        // starting with field 3 (state), so utime (field 14) and stime (field 15) are at 11 and 12.
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessUsage(
            cpuSeconds: (user + system) / ticksPerSecond,
            residentBytes: kilobytes("VmRSS:", in: status) * 1024,
            peakResidentBytes: kilobytes("VmHWM:", in: status) * 1024)
    }

    /// CPU seconds so far of each thread of process `pid` whose name starts with `prefix` (the server's loops:
    /// `hail-lws-0`, `hail-lws-1`, ...), by thread name; empty where /proc is missing.
    static func threadCPUSeconds(pid: Int32, named prefix: String) -> [String: Double] {
        let directory = "/proc/\(pid)/task"
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var seconds: [String: Double] = [:]
        for task in tasks {
            guard
                let name = (try? String(contentsOfFile: "\(directory)/\(task)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines), name.hasPrefix(prefix),
                let stat = try? String(contentsOfFile: "\(directory)/\(task)/stat", encoding: .utf8),
                let closing = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: closing)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seconds[name, default: 0] += (user + system) / ticksPerSecond
        }
        return seconds
    }

    /// The `kB` figure on the line of /proc/self/status starting with `key`, or 0.
    private static func kilobytes(_ key: String, in status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }

    /// CPU used between `earlier` and this reading over `wallSeconds`, in percent of one core.
    func cpuPercent(since earlier: ProcessUsage, wallSeconds: Double) -> Double {
        guard wallSeconds > 0 else { return 0 }
        return (cpuSeconds - earlier.cpuSeconds) / wallSeconds * 100
    }
}
