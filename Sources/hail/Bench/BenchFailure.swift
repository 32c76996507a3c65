/// A benchmark that could not run (server would not start, nobody answered): exit status 1, not 64.
struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong, in words a user can act on.
    let description: String

    /// Creates a failure with `description`.
    init(_ description: String) { self.description = description }
}
