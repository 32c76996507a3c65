/// A test harness that could not do its part (a server that would not start, a condition never met in time),
/// as opposed to the code under test doing the wrong thing.
public struct HarnessError: Error, CustomStringConvertible {
    /// What the harness could not do.
    public let description: String

    /// An error saying `description`.
    public init(description: String) { self.description = description }
}
