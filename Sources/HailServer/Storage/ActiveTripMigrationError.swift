/// A database the one-active-trip schema step could not migrate: a rider or a driver on two trips under way. The
/// message names them and the fix; the server does not start until an operator has parted them.
public struct ActiveTripMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong and what to do, for the operator reading the log.
    public let message: String

    /// The message.
    public var description: String { message }
}
