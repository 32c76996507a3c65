/// What `HailAPI.answer(_:)` gives back: the response and its route's name now, when they come from memory (a
/// health probe, a refusal before any store is asked), or the work that will make them.
public enum APIAnswer: Sendable {
    /// Answered without suspending.
    case now(APIResponse, route: String)
    /// The rest of the request's work: a store, a deadline race, the pool.
    case later(@Sendable () async -> (APIResponse, String))
}
