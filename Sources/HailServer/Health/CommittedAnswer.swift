import Synchronization

/// The answer a request owes once its change is committed, kept where its deadline can see it: a request whose
/// commit went through is answered with the committed change, never a 503, even when what follows the commit (the
/// publish, the driver's record, the search's offers) is still waiting on a silent backend. That work goes on
/// after the answer, and the reconciler redoes what it could not finish.
final class CommittedAnswer: Sendable {
    /// The answer slot of the request being served, bound by `HailAPI` around the route's work.
    @TaskLocal static var current: CommittedAnswer?

    private let response = Mutex<APIResponse?>(nil)

    /// The committed answer, once there is one.
    var committed: APIResponse? { response.withLock { $0 } }

    /// Records the first commit's answer; a later commit in the same request (an observer's) does not replace it.
    func commit(_ answer: APIResponse) {
        response.withLock { if $0 == nil { $0 = answer } }
    }
}
