/// Where a database lives.
public enum SQLiteLocation: Sendable, Hashable {
    /// A file, created when missing. Its directory must exist.
    case file(String)
    /// A private database in memory that disappears with its connection; for tests and scratch work only,
    /// since nothing in it survives the process.
    case inMemory

    var path: String {
        switch self {
        case .file(let path): path
        case .inMemory: ":memory:"
        }
    }
}
