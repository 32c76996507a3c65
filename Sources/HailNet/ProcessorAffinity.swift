import CLibWebSockets

/// The processors this process may run on: where pinned loops go, and how a benchmark shares a machine's cores
/// among the servers it starts.
public enum ProcessorAffinity {
    /// The processors in this process's affinity mask (which a container or `taskset` may narrow), in order;
    /// empty when the mask cannot be read.
    public static var allowed: [Int] {
        var cpus = [Int32](repeating: 0, count: 1_024)
        let count = Int(hail_allowed_cpus(&cpus, Int32(cpus.count)))
        return cpus.prefix(max(0, count)).map(Int.init)
    }
}
