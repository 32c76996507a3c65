// Apple platforms have SQLite in the SDK (its own `SQLite3` module); elsewhere it comes through CSQLite, a
// Linux-only system library, so no iOS link picks up a Homebrew macOS library.
#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// Owns one `sqlite3*` and its prepared statements, and closes them exactly once.
///
/// `@unchecked Sendable` so that a connection's handle can be carried to the thread that should close it (an
/// actor's deinit runs on whatever thread drops the last reference, but closing may checkpoint the WAL, which is
/// blocking I/O that belongs on the database's own thread). What protects it: every use is serialised by its
/// owner. Only `SQLiteConnection` uses it, and a connection is not Sendable, so one thread at a time reaches it;
/// `SQLiteDatabase` sends it elsewhere only from its deinit, when no connection call can run any more.
final class SQLiteHandle: @unchecked Sendable {
    /// The open connection; nil once closed.
    private(set) var pointer: OpaquePointer?
    /// Prepared statements by SQL text. Kept here so that they are finalized on the same thread as the close.
    var statements: [String: SQLiteStatement] = [:]

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Finalizes the statements and closes the connection; closing twice is harmless.
    func close() throws {
        statements.removeAll()
        guard let pointer else { return }
        self.pointer = nil
        let code = sqlite3_close_v2(pointer)
        if code != SQLITE_OK { throw SQLiteError(handle: nil, code: code, sql: nil) }
    }

    deinit { _ = try? close() }
}
