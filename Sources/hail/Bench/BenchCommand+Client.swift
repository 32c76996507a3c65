extension BenchCommand {
    /// `hail bench client [--json]`.
    static func runClient(_ arguments: [String]) async throws(UsageError) {
        throw UsageError("`hail bench client` is not written yet")
    }
}
