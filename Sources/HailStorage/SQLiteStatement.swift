// Apple platforms have SQLite in the SDK (its own `SQLite3` module); elsewhere it comes through CSQLite, a
// Linux-only system library, so no iOS link picks up a Homebrew macOS library.
#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// The parameters of one execution: by position (`?`, `?NNN`) or by name (`:name`, `@name`, `$name`).
enum SQLiteArguments {
    case positional([SQLiteValue])
    case named([String: SQLiteValue])
}

/// One prepared statement, owned by a connection's cache (or by one call when the cached one is busy).
final class SQLiteStatement {
    let pointer: OpaquePointer
    let sql: String
    /// True while a caller is stepping it, so a re-entrant use of the same SQL gets its own statement.
    var inUse = false
    private var cachedColumns: SQLiteColumns?

    init(handle: OpaquePointer, sql: String, persistent: Bool) throws {
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        // The tail points into the C string, so it is read while that string is alive: a String passed straight
        // to the call becomes a temporary buffer freed on return, and reading the tail after it read freed
        // memory (a single statement was sometimes refused as two).
        let (code, prepared, trailing) = sql.withCString { text -> (Int32, OpaquePointer?, Bool) in
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(handle, text, -1, flags, &statement, &tail)
            let trailing = code == SQLITE_OK && tail.map { Self.holdsStatement($0, handle: handle) } == true
            return (code, statement, trailing)
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(prepared)
            throw SQLiteError(handle: handle, code: code, sql: sql)
        }
        guard let statement = prepared else {
            throw SQLiteError(kind: .argumentMismatch, message: "the SQL holds no statement", sql: sql)
        }
        // A second statement would be silently ignored; say so instead, and point at `execute` for scripts.
        if trailing {
            sqlite3_finalize(statement)
            throw SQLiteError(
                kind: .argumentMismatch,
                message: "the SQL holds more than one statement; use execute(_:) for scripts", sql: sql)
        }
        self.pointer = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(pointer) }

    private static func holdsStatement(_ text: UnsafePointer<CChar>, handle: OpaquePointer) -> Bool {
        var next: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, text, -1, &next, nil)
        sqlite3_finalize(next)
        // A tail that does not even parse is still a second statement.
        return code != SQLITE_OK || next != nil
    }

    /// True when the statement cannot change the database (SELECT, and transaction control).
    var isReadOnly: Bool { sqlite3_stmt_readonly(pointer) != 0 }

    var columns: SQLiteColumns {
        if let cachedColumns { return cachedColumns }
        let count = sqlite3_column_count(pointer)
        let names = (0..<count).map { index in
            sqlite3_column_name(pointer, index).map { String(cString: $0) } ?? "column\(index)"
        }
        let columns = SQLiteColumns(names: names, sql: sql)
        cachedColumns = columns
        return columns
    }

    func bind(_ arguments: SQLiteArguments, handle: OpaquePointer) throws {
        let count = Int(sqlite3_bind_parameter_count(pointer))
        switch arguments {
        case .positional(let values):
            guard values.count == count else {
                throw SQLiteError(
                    kind: .argumentMismatch,
                    message: "the statement has \(count) parameter(s) but \(values.count) argument(s) were given",
                    sql: sql)
            }
            for (offset, value) in values.enumerated() {
                try bind(value, at: Int32(offset + 1), handle: handle)
            }
        case .named(let values):
            var used = Set<String>()
            for index in 0..<count {
                let position = Int32(index + 1)
                guard let cName = sqlite3_bind_parameter_name(pointer, position) else {
                    throw SQLiteError(
                        kind: .argumentMismatch,
                        message: "parameter \(position) is positional; bind it by position, not by name", sql: sql)
                }
                let name = String(cString: cName)
                let bare = String(name.dropFirst())
                guard let key = [name, bare].first(where: { values[$0] != nil }), let value = values[key] else {
                    throw SQLiteError(kind: .argumentMismatch, message: "no argument for parameter \(name)", sql: sql)
                }
                used.insert(key)
                try bind(value, at: position, handle: handle)
            }
            if let unused = values.keys.sorted().first(where: { !used.contains($0) }) {
                throw SQLiteError(
                    kind: .argumentMismatch, message: "argument '\(unused)' matches no parameter", sql: sql)
            }
        }
    }

    private func bind(_ value: SQLiteValue, at position: Int32, handle: OpaquePointer) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(pointer, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(pointer, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(pointer, position, real)
        case .text(let text):
            var text = text
            // The explicit byte count keeps embedded NULs; a nil base address would bind NULL, not "".
            code = text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else {
                    return sqlite3_bind_text(pointer, position, "", 0, transientDestructor())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    sqlite3_bind_text64(
                        pointer, position, chars, sqlite3_uint64(bytes.count), transientDestructor(),
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            // A nil pointer would bind NULL, so an empty blob is bound as a zero-length blob explicitly.
            code = bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return sqlite3_bind_zeroblob(pointer, position, 0) }
                return sqlite3_bind_blob64(pointer, position, base, sqlite3_uint64(raw.count), transientDestructor())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(handle: handle, code: code, sql: sql) }
    }

    /// Advances one row: true when a row is ready, false when the statement is done.
    func step(handle: OpaquePointer) throws -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(handle: handle, code: code, sql: sql)
        }
    }

    func currentRow() -> SQLiteRow {
        let count = sqlite3_column_count(pointer)
        let values = (0..<count).map(value(at:))
        return SQLiteRow(values: values, columns: columns)
    }

    private func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(pointer, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(pointer, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(pointer, index))
        case SQLITE_TEXT:
            // Fetch the pointer before the byte count, as SQLite documents, so no conversion invalidates it.
            guard let text = sqlite3_column_text(pointer, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(pointer, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(pointer, index) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(pointer, index))
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }

    /// Makes the statement ready for its next use and drops references to the last arguments.
    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
        inUse = false
    }
}

/// SQLITE_TRANSIENT, which Swift cannot import because it is a cast macro: tells SQLite to copy the bytes now,
/// since Swift's buffers are only valid inside the closure that lends them.
private func transientDestructor() -> sqlite3_destructor_type {
    unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
