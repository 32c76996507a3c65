/// Why a trace file could not be read: where, and what was wrong.
public struct DriverTraceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line (CSV, 1-based), element (JSON, 0-based) or track point (GPX, 0-based) at fault.
    public let location: String
    /// What was wrong with it.
    public let reason: String

    /// Creates an error.
    public init(_ location: String, _ reason: String) {
        self.location = location
        self.reason = reason
    }

    /// A one-line explanation.
    public var description: String { "\(location): \(reason)" }
}
