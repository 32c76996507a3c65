import Foundation
import HailTime

/// The runtime of a `DrainMachine`: feeds it the signals and a tick every `tickInterval` on the injected
/// `Timeline`, carries out its actions on a `DrainTarget`, and returns the outcome.
public actor NodeDrain {
    private var machine: DrainMachine
    private let target: any DrainTarget
    private let time: Timeline
    private let tickInterval: Duration
    private let log: @Sendable (_ event: String, _ fields: [String: String]) -> Void
    private var outcome: DrainOutcome?
    private var waiters: [CheckedContinuation<DrainOutcome, Never>] = []
    private var ticking: Task<Void, Never>?

    /// A drain of `target`, not started; `log` gets one line per step (the runtime's JSON log).
    public init(
        target: any DrainTarget, settings: DrainSettings, time: Timeline, seed: UInt64,
        tickInterval: Duration = .milliseconds(100),
        log: @escaping @Sendable (_ event: String, _ fields: [String: String]) -> Void = { _, _ in }
    ) {
        machine = DrainMachine(settings: settings, seed: seed)
        self.target = target
        self.time = time
        self.tickInterval = tickInterval
        self.log = log
    }

    /// A SIGTERM (or SIGINT): the first starts the drain, the next forces the exit.
    public func terminate() async {
        let first = machine.phase == .serving
        await carryOut(machine.handle(.terminate(at: time.now())))
        guard first, outcome == nil else { return }
        ticking = Task { await self.tickUntilEnded() }
    }

    /// Waits for the drain's end and says how it ended.
    public func finished() async -> DrainOutcome {
        if let outcome { return outcome }
        return await withCheckedContinuation { waiters.append($0) }
    }

    /// Where the machine is (for tests).
    public var phase: DrainMachine.Phase { machine.phase }

    private func tickUntilEnded() async {
        while outcome == nil {
            do { try await time.sleep(for: tickInterval) } catch { return }
            guard outcome == nil else { return }
            if machine.phase == .moving {
                let seen = await target.positionsSeen()
                if !seen.isEmpty { await carryOut(machine.handle(.positionsSeen(seen))) }
            }
            let open = await target.openWork()
            await carryOut(machine.handle(.tick(at: time.now(), streams: open.streams, requests: open.requests)))
        }
    }

    private static func seconds(_ value: TimeInterval) -> String { String((value * 100).rounded() / 100) }

    private func carryOut(_ actions: [DrainMachine.Action]) async {
        for action in actions {
            guard outcome == nil else { return }
            switch action {
            case .markUnready:
                target.markUnready()
                log("drain_started", [:])
            case .stopAccepting:
                let streams = await target.stopAccepting()
                let actions = machine.handle(.streamsListed(streams, at: time.now()))
                var fields = [
                    "streams": String(streams.count), "drivers": String(streams.drivers.count),
                    "watchers": String(streams.watchers.count),
                ]
                if let plan = machine.plan {
                    fields["drivers_window_seconds"] = Self.seconds(plan.driversWindow)
                    fields["handover_seconds"] = Self.seconds(plan.handover)
                    fields["watchers_window_seconds"] = Self.seconds(plan.watchersWindow)
                }
                log("drain_listeners_closed", fields)
                await carryOut(actions)
            case .close(let ids):
                await target.closeStreams(ids)
            case .closeRemaining:
                await target.closeRemainingStreams()
            case .flush:
                log("drain_flushing", [:])
                await target.flush()
                await carryOut(machine.handle(.flushed(at: time.now())))
            case .exit(let ended):
                outcome = ended
                ticking?.cancel()
                log("drain_ended", ["outcome": ended.rawValue])
                for waiter in waiters { waiter.resume(returning: ended) }
                waiters = []
            }
        }
    }
}
