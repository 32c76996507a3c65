// Apple platforms have SQLite in the SDK (its own `SQLite3` module); elsewhere it comes through CSQLite, a
// Linux-only system library, so no iOS link picks up a Homebrew macOS library.
#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// An error from SQLite or from this wrapper, with everything needed to tell what failed and why.
///
/// A struct rather than an enum so that new kinds can be added without breaking anyone's `switch`.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in the wrapper's terms; compare with the static members.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// SQLite itself returned an error; see `resultCode` and `extendedResultCode`.
        public static let sqlite = Kind("sqlite")
        /// A column held a value of another storage class than the type asked for.
        public static let typeMismatch = Kind("typeMismatch")
        /// A column held NULL where a value was required.
        public static let unexpectedNull = Kind("unexpectedNull")
        /// No column of that name or index in the row.
        public static let noSuchColumn = Kind("noSuchColumn")
        /// The arguments do not match the statement's parameters.
        public static let argumentMismatch = Kind("argumentMismatch")
        /// The database was written by newer code with migrations this code does not know.
        public static let schemaTooNew = Kind("schemaTooNew")
        /// A statement that writes ran inside a read-only scope.
        public static let writeInReadScope = Kind("writeInReadScope")
        /// The connection was already closed.
        public static let closed = Kind("closed")
        /// The database could not be put in the journal mode durability depends on.
        public static let journalMode = Kind("journalMode")

        /// The kind's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// SQLite's primary result code (`SQLITE_CONSTRAINT` is 19), or 0 when SQLite reported nothing.
    public let resultCode: Int32
    /// SQLite's extended result code (`SQLITE_CONSTRAINT_UNIQUE` is 2067), or 0 when SQLite reported nothing.
    public let extendedResultCode: Int32
    /// The message: `sqlite3_errmsg` for SQLite errors, the wrapper's own wording otherwise.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?

    init(kind: Kind, message: String, sql: String? = nil, resultCode: Int32 = 0, extendedResultCode: Int32 = 0) {
        self.kind = kind
        self.message = message
        self.sql = sql
        self.resultCode = resultCode
        self.extendedResultCode = extendedResultCode
    }

    /// Reads the code and message SQLite recorded on the connection for the call that just failed.
    init(handle: OpaquePointer?, code: Int32, sql: String?) {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        let message =
            handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
        self.init(
            kind: .sqlite, message: message, sql: sql, resultCode: code & 0xFF,
            extendedResultCode: extended == 0 ? code : extended)
    }

    /// True for any constraint failure: unique, primary key, foreign key, check or not-null.
    public var isConstraintViolation: Bool { kind == .sqlite && resultCode == SQLITE_CONSTRAINT }

    /// True when a UNIQUE or PRIMARY KEY constraint refused a duplicate, which is how an idempotency race shows.
    public var isUniqueViolation: Bool {
        kind == .sqlite
            && (extendedResultCode == constraintUnique
                || extendedResultCode == constraintPrimaryKey)
    }

    /// The `table.column` names a UNIQUE or PRIMARY KEY violation reports (`["trips.rider_id"]`), which is how SQLite
    /// names the index that refused a row (an index on columns has no name in the message); nil for other errors.
    public var uniqueColumns: [String]? {
        let prefix = "UNIQUE constraint failed: "
        guard isUniqueViolation, message.hasPrefix(prefix) else { return nil }
        return message.dropFirst(prefix.count).split(separator: ",").map { String($0.drop(while: \.isWhitespace)) }
    }

    /// True for a foreign key violation.
    public var isForeignKeyViolation: Bool {
        kind == .sqlite && extendedResultCode == constraintForeignKey
    }

    /// True when another connection held the lock longer than the busy timeout.
    public var isBusy: Bool { kind == .sqlite && (resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED) }

    /// One line for logs: kind, codes, message and SQL.
    public var description: String {
        var text = "SQLiteError(\(kind))"
        if resultCode != 0 { text += " [\(resultCode)/\(extendedResultCode)]" }
        text += ": \(message)"
        if let sql { text += " -- SQL: \(sql)" }
        return text
    }
}

// The extended constraint codes are C macros built from expressions, which Swift does not import.
private let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
private let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
private let constraintForeignKey: Int32 = SQLITE_CONSTRAINT | (3 << 8)
