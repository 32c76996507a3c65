import Synchronization

/// Whether this node can serve: each backend probed with a short deadline, the verdict kept for a moment so a
/// balancer probing every second (from several balancers) costs each backend about one round trip a second.
///
/// `/healthz` stays liveness only (the process answers); `/readyz` is this. A later drain on SIGTERM sets
/// `draining`, which makes the node unready at once, before its backends are even asked.
public final class Readiness: Sendable {
    private struct State {
        var verdict: ReadinessVerdict?
        var checkedAt: ContinuousClock.Instant?
        var draining = false
    }

    private let probes: [BackendProbe]
    /// How long each probe may take before its backend counts as not answering.
    public let deadline: Duration
    /// How long a verdict is reused.
    public let cacheFor: Duration
    private let state = Mutex(State())

    /// Readiness over `probes`, each given `deadline`, verdicts reused for `cacheFor`.
    public init(probes: [BackendProbe], deadline: Duration = .seconds(1), cacheFor: Duration = .milliseconds(500)) {
        self.probes = probes
        self.deadline = deadline
        self.cacheFor = cacheFor
    }

    /// True while the node drains: `/readyz` answers 503 `draining` whatever the backends say.
    public var draining: Bool {
        get { state.withLock { $0.draining } }
        set { state.withLock { $0.draining = newValue } }
    }

    /// The current verdict: the last one when younger than `cacheFor`, else the probes' answers (in parallel,
    /// each bounded by `deadline`; the real clock, since what it bounds is a wait on a backend).
    public func verdict() async -> ReadinessVerdict {
        let now = ContinuousClock.now
        let (cached, draining) = state.withLock { state -> (ReadinessVerdict?, Bool) in
            guard let checkedAt = state.checkedAt, now - checkedAt < cacheFor else { return (nil, state.draining) }
            return (state.verdict, state.draining)
        }
        if draining { return ReadinessVerdict(results: [:], draining: true) }
        if let cached { return cached }
        let deadline = self.deadline
        var results: [String: String?] = [:]
        await withTaskGroup(of: (String, String?).self) { group in
            for probe in probes {
                group.addTask {
                    let outcome = await firstWithin(deadline) { () -> String? in
                        do {
                            try await probe.check()
                            return nil
                        } catch {
                            return "\(error)"
                        }
                    }
                    return (probe.name, outcome ?? "no answer within \(Self.seconds(deadline)) s")
                }
            }
            for await (name, problem) in group { results[name] = .some(problem) }
        }
        let verdict = ReadinessVerdict(results: results, draining: state.withLock { $0.draining })
        state.withLock { state in
            state.verdict = verdict
            state.checkedAt = ContinuousClock.now
        }
        return verdict
    }

    private static func seconds(_ duration: Duration) -> String {
        let millis = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return millis % 1000 == 0 ? "\(millis / 1000)" : "\(Double(millis) / 1000)"
    }
}
