import Foundation

/// The machine and build a figure was measured on, printed with every result.
public struct BenchMachine: Encodable, Sendable {
    /// Cores the process may use.
    public let cores: Int
    /// CPU model name from /proc/cpuinfo, when readable.
    public let cpu: String
    /// Physical memory in GiB.
    public let memoryGiB: Double
    /// `release` or `debug`: debug figures are not worth comparing.
    public let build: String
    /// The 1-minute load average when the run started: above the core count, other processes were
    /// competing for the CPU and the figures are low.
    public let loadAverage: Double

    /// This machine and this binary.
    public static func current() -> BenchMachine {
        var cpu = "unknown"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first

        return BenchMachine(
            cores: ProcessInfo.processInfo.activeProcessorCount, cpu: cpu, memoryGiB: (memory * 10).rounded() / 10,
            build: build, loadAverage: load.flatMap { Double($0) } ?? 0)
    }

    /// One line for the human table.
    public var summary: String {
        "\(cores) cores, \(cpu), \(memoryGiB) GiB RAM, \(build) build, load average \(loadAverage) at start"
    }
}
