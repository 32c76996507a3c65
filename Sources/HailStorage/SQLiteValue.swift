/// One SQLite value as stored: the five storage classes, nothing else.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double; SQLite stores a NaN as NULL.
    case real(Double)
    /// UTF-8 text, which may contain NUL characters.
    case text(String)
    /// Raw bytes; an empty blob stays an empty blob, not NULL.
    case blob([UInt8])

    /// The storage class name SQLite's `typeof()` would print, used in error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }
}
