/// Where the server's flags come from (`ServerConfiguration.flags`).
public enum FlagsSetting: Sendable, Hashable {
    /// No file: everyone streams, sees the road ETA and has no location cap; the route provider is the road graph
    /// when there are roads. A reload has nothing to read.
    case none
    /// A flags file (`hail server --flags FILE`), read when the services start and again on every reload.
    case file(String)
    /// A flags document given as text (tests and embedding programs); a reload has nothing to read.
    case text(String)
}
