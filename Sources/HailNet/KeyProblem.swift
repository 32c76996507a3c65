/// Why a key could not be made, read or used.
public struct KeyProblem: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for an operator.
    public let description: String

    /// A problem described by `description`.
    public init(_ description: String) { self.description = description }
}
