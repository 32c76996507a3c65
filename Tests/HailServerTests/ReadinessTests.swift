import HailServer
import Testing

@Suite("Readiness: each backend probed with a deadline")
struct ReadinessTests {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    @Test func aBackendThatFailsOrDoesNotAnswerInTimeIsNamedAndTheOthersSayOk() async {
        let readiness = Readiness(
            probes: [
                BackendProbe(name: "postgresql") {},
                BackendProbe(name: "redis") { throw Refused() },
                BackendProbe(name: "sqlite") {
                    // Answers long after the deadline: only the deadline ends the wait.
                    try await Task.sleep(for: .seconds(30))
                },
            ], deadline: .seconds(3))
        let verdict = await readiness.verdict()
        #expect(verdict.status == "unavailable")
        #expect(verdict.failed == ["redis", "sqlite"])
        #expect(
            verdict.backends == [
                "postgresql": "ok", "redis": "connection refused", "sqlite": "no answer within 3 s",
            ])
    }

    @Test func aDrainingNodeIsNotReadyWhateverItsBackendsSay() async {
        let readiness = Readiness(probes: [BackendProbe(name: "postgresql") {}])
        #expect(await readiness.verdict().isReady)
        readiness.draining = true
        #expect(await readiness.verdict() == ReadinessVerdict(results: [:], draining: true))
        #expect(await readiness.verdict().status == "draining")
        readiness.draining = false
        #expect(await readiness.verdict().isReady)
    }
}
