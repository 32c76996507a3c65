/// A Swift type that binds to a statement parameter and reads back from a result column.
///
/// Reading is strict: a value of another storage class is a type mismatch rather than a silent conversion,
/// because SQLite's dynamic typing would otherwise turn a schema mistake into wrong data.
public protocol SQLiteValueConvertible {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }
    /// The Swift value for a stored value, or nil when the storage class does not fit this type.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteValueConvertible {
    /// The value itself.
    public var sqliteValue: SQLiteValue { self }
    /// Any stored value, NULL included.
    public init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Int64: SQLiteValueConvertible {
    /// An integer value.
    public var sqliteValue: SQLiteValue { .integer(self) }
    /// Only an integer; a real is refused so that fractions are never truncated.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Int: SQLiteValueConvertible {
    /// An integer value.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    /// Only an integer that fits `Int`.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: SQLiteValueConvertible {
    /// An integer value.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }
    /// Only an integer that fits `Int32`.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue, let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: SQLiteValueConvertible {
    /// A real value; NaN is stored by SQLite as NULL.
    public var sqliteValue: SQLiteValue { .real(self) }
    /// A real, or an integer that a double represents exactly (a REAL column may hand back either).
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value):
            guard let exact = Double(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Bool: SQLiteValueConvertible {
    /// The integer 1 or 0, SQLite's own spelling of a boolean.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
    /// Only the integers 0 and 1; anything else means the column is not a flag.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(0): self = false
        case .integer(1): self = true
        default: return nil
        }
    }
}

extension String: SQLiteValueConvertible {
    /// A text value.
    public var sqliteValue: SQLiteValue { .text(self) }
    /// Only text; a blob is refused because its bytes need not be UTF-8.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Array: SQLiteValueConvertible where Element == UInt8 {
    /// A blob value.
    public var sqliteValue: SQLiteValue { .blob(self) }
    /// Only a blob.
    public init?(sqliteValue: SQLiteValue) {
        guard case .blob(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// NULL for nil, otherwise the wrapped value.
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
    /// nil for NULL, otherwise the wrapped type's strict reading.
    public init?(sqliteValue: SQLiteValue) {
        if case .null = sqliteValue {
            self = .none
        } else if let wrapped = Wrapped(sqliteValue: sqliteValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}
