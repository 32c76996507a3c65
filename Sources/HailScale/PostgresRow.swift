import Foundation

/// One result row in text format, read by column index.
public struct PostgresRow: Sendable, Hashable {
    /// The columns' text, nil for SQL NULL.
    public let values: [String?]

    /// The column's text, nil for NULL.
    public func optionalString(_ column: Int) throws -> String? {
        guard values.indices.contains(column) else { throw PostgresError.decoding("no column \(column)") }
        return values[column]
    }

    /// The column's text; NULL is an error.
    public func string(_ column: Int) throws -> String {
        guard let text = try optionalString(column) else { throw PostgresError.decoding("column \(column) is NULL") }
        return text
    }

    /// An integer column.
    public func int(_ column: Int) throws -> Int {
        let text = try string(column)
        guard let value = Int(text) else { throw PostgresError.decoding("not an integer: \(text)") }
        return value
    }

    /// A floating-point column.
    public func double(_ column: Int) throws -> Double {
        let text = try string(column)
        guard let value = Double(text) else { throw PostgresError.decoding("not a number: \(text)") }
        return value
    }

    /// A floating-point column that may be NULL.
    public func optionalDouble(_ column: Int) throws -> Double? {
        guard let text = try optionalString(column) else { return nil }
        guard let value = Double(text) else { throw PostgresError.decoding("not a number: \(text)") }
        return value
    }

    /// A boolean column (`t` or `f`).
    public func bool(_ column: Int) throws -> Bool {
        switch try string(column) {
        case "t": return true
        case "f": return false
        case let text: throw PostgresError.decoding("not a boolean: \(text)")
        }
    }

    /// A `bytea` column.
    public func data(_ column: Int) throws -> Data {
        let text = try string(column)
        guard let data = PostgresBytes.data(fromHex: text) else { throw PostgresError.decoding("not hex bytea") }
        return data
    }
}
