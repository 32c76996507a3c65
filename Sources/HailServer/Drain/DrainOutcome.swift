/// How a drain ended.
public enum DrainOutcome: String, Sendable, Hashable, CaseIterable {
    /// Every stream moved, every request answered, the acknowledged work flushed: exit 0.
    case drained
    /// `--drain-seconds` ran out first: what is still open is closed (4012) and the node exits 0 anyway, since
    /// nothing it acknowledged waits (an acknowledgement follows the commit).
    case boundReached
    /// A second SIGTERM or SIGINT: the operator wants the node gone now; exit 1.
    case forced

    /// The process's exit status for this outcome.
    public var exitStatus: Int32 { self == .forced ? 1 : 0 }
}
