/// One result row, copied out of SQLite so it outlives the statement and can cross actors.
public struct SQLiteRow: Sendable {
    /// The values in column order.
    public let values: [SQLiteValue]
    private let columns: SQLiteColumns

    init(values: [SQLiteValue], columns: SQLiteColumns) {
        self.values = values
        self.columns = columns
    }

    /// The column names in order, as SQLite reports them (the `AS` alias when there is one).
    public var columnNames: [String] { columns.names }

    /// The number of columns.
    public var count: Int { values.count }

    /// The raw value at a column index, or nil when the index is out of range.
    public subscript(index: Int) -> SQLiteValue? { values.indices.contains(index) ? values[index] : nil }

    /// The raw value of a named column, or nil when there is no such column.
    public subscript(name: String) -> SQLiteValue? { columns.index(of: name).map { values[$0] } }

    /// The value at a column index as `T`; throws on NULL (unless `T` is optional) or another storage class.
    public func value<T: SQLiteValueConvertible>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else {
            throw SQLiteError(
                kind: .noSuchColumn, message: "no column at index \(index); the row has \(values.count)",
                sql: columns.sql)
        }
        return try convert(index, to: type)
    }

    /// The value of a named column as `T`; throws on NULL (unless `T` is optional) or another storage class.
    public func value<T: SQLiteValueConvertible>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.index(of: name) else {
            throw SQLiteError(
                kind: .noSuchColumn,
                message:
                    "no column named '\(name)'; the row has \(columns.names.map { "'\($0)'" }.joined(separator: ", "))",
                sql: columns.sql)
        }
        return try convert(index, to: type)
    }

    /// True when the column at the index is NULL.
    public func isNull(_ index: Int) -> Bool { self[index] == .null }

    /// True when the named column is NULL.
    public func isNull(_ name: String) -> Bool { self[name] == .null }

    private func convert<T: SQLiteValueConvertible>(_ index: Int, to type: T.Type) throws -> T {
        let stored = values[index]
        if let value = T(sqliteValue: stored) { return value }
        let column = "column '\(columns.names[index])' (index \(index))"
        if stored == .null {
            throw SQLiteError(
                kind: .unexpectedNull, message: "\(column) is NULL but \(T.self) was required", sql: columns.sql)
        }
        throw SQLiteError(
            kind: .typeMismatch, message: "\(column) holds \(stored.typeName) but \(T.self) was asked for",
            sql: columns.sql)
    }
}

/// The column names of one statement's result, shared by all its rows.
final class SQLiteColumns: Sendable {
    let names: [String]
    let sql: String
    private let positions: [String: Int]

    init(names: [String], sql: String) {
        self.names = names
        self.sql = sql
        // The first column wins a duplicated name, as in SQLite's own name lookup. Keys are lowercased because
        // SQL identifiers are case-insensitive.
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name.lowercased()] == nil {
            positions[name.lowercased()] = index
        }
        self.positions = positions
    }

    func index(of name: String) -> Int? { positions[name.lowercased()] }
}
