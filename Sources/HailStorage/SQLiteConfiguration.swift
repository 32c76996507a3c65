/// How a connection is opened: durability, lock waiting and statement caching.
public struct SQLiteConfiguration: Sendable {
    /// What a commit must survive before it returns.
    public enum Durability: Sendable, Hashable {
        /// `synchronous=FULL`: the WAL is fsynced at every commit, so a returned commit survives a process kill,
        /// an OS crash and a power loss. The default, because the server acknowledges a trip change only after
        /// its commit, and an acknowledged change that vanishes on reboot breaks that promise.
        case full
        /// `synchronous=NORMAL`: the WAL is fsynced only at checkpoints. A returned commit survives a kill of the
        /// process (it is already in the OS page cache) but the last few may roll back after a power loss or an OS
        /// crash; the file is never corrupted. For data that can be rebuilt, such as high-rate location history.
        case normal

        var pragmaValue: String {
            switch self {
            case .full: "FULL"
            case .normal: "NORMAL"
            }
        }
    }

    /// What a commit must survive; `.full` unless a caller knows its data can be lost on power failure.
    public var durability: Durability
    /// How long a statement waits for another connection's lock before failing with a busy error.
    public var busyTimeoutMilliseconds: Int
    /// How many prepared statements to keep; the server's handful of queries fit many times over.
    public var statementCacheCapacity: Int

    /// A configuration with the safe defaults: full durability, a five-second busy timeout, 64 cached statements.
    public init(durability: Durability = .full, busyTimeoutMilliseconds: Int = 5_000, statementCacheCapacity: Int = 64)
    {
        self.durability = durability
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.statementCacheCapacity = statementCacheCapacity
    }
}
