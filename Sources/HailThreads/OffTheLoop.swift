/// Runs `work` on the cooperative pool and returns its result to the caller's executor.
///
/// HailNet runs an HTTP handler on the network loop that read its request, and every socket of that loop waits
/// while it computes; a handler wraps in this whatever would hold the loop for long (a route search, a map match,
/// a large JSON encoding, a blocking call), paying two thread switches for it instead. A detached task, so no
/// executor preference of the caller's task follows the work onto the pool.
public func offTheLoop<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () async throws(Failure) -> T
) async throws(Failure) -> T {
    let outcome = await Task.detached { () async -> Result<T, Failure> in
        do throws(Failure) {
            return .success(try await work())
        } catch {
            return .failure(error)
        }
    }.value
    return try outcome.get()
}
