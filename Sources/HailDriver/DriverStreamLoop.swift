import Foundation
import HailCore
import HailProtocol
import HailTime

/// Keeps the driver stream connected: connects, hands over every frame, and after a drop waits out the jittered
/// backoff and connects again, until its task is cancelled or the server closes with a code that says not to
/// (`WebSocketCloseCode.shouldReconnect`); storage trouble closes with 4013, which is reconnected, and a draining
/// node 4012, reconnected after a jitter of its own (`move`) rather than the backoff; a stream that had stayed up
/// and dropped without a close frame (its node crashed: every driver it held drops at once) after `afterDrop`'s
/// draw over a few seconds, so the fleet does not land on the node left within one second.
///
/// The backoff starts over only after a stream that stayed up `steadyAfter`, or `steadyBeforeOutage` when it was closed with 4013 (or an
/// older server's 1013): a server whose storage is paused accepts the socket and closes it at once with 4013, and starting over on every such
/// connect reconnected twice a second for the whole outage, each time with the status, config, trip and location
/// requests a reconnect brings (16 apps took 1.5 cores in the fault suite's Redis pause). A REST answer from the
/// server during such an outage's wait (`serverAnswered`) brings the next try forward: the waits are
/// `StreamReconnectPlan`'s.
@MainActor
final class DriverStreamLoop {
    /// What the loop tells the model.
    enum Event {
        /// The stream is up; `reconnected` when it had been up before.
        case connected(reconnected: Bool)
        /// A frame from the server.
        case frame(DriverServerFrame)
        /// The stream dropped (or could not be had).
        case lost
        /// The server closed the stream with a code that says reconnecting cannot help
        /// (`WebSocketCloseCode.shouldReconnect`: a bad token, another connection took over): the loop stops.
        case refused(WebSocketCloseCode)
    }

    /// One `run`'s plan and the sleep a REST answer may cut short.
    private final class Run {
        var plan: StreamReconnectPlan
        var sleeper: Task<Void, any Error>?

        init(plan: StreamReconnectPlan) { self.plan = plan }
    }

    let channel: any DriverChannel
    let backoff: Backoff
    /// The wait after a close that asks for a reconnect at once (`WebSocketCloseCode.reconnectsAtOnce`).
    var move: Backoff = .moveElsewhere
    /// The wait after a stream that had stayed up dropped without a close frame.
    var afterDrop: Backoff = .afterDrop
    let timeline: Timeline
    let random: DriverRandom
    /// How long a stream must stay up for its end to count as a fresh drop rather than one more failure.
    var steadyAfter: TimeInterval = 10
    /// The run under way (a new one replaces it when the driver goes online again).
    private var active: Run?

    /// A loop on `channel`, its waits drawn from `random`.
    init(channel: any DriverChannel, backoff: Backoff, timeline: Timeline, random: DriverRandom) {
        self.channel = channel
        self.backoff = backoff
        self.timeline = timeline
        self.random = random
    }

    /// Runs until cancelled, telling `event` what happens.
    func run(_ event: @MainActor (Event) -> Void) async {
        var plan = StreamReconnectPlan(backoff: backoff)
        plan.move = move
        plan.afterDrop = afterDrop
        plan.steadyAfter = steadyAfter
        let run = Run(plan: plan)
        active = run
        defer { if active === run { active = nil } }
        var connectedBefore = false
        while !Task.isCancelled {
            run.plan.trying()
            let end: StreamReconnectPlan.End
            do {
                let frames = try await channel.connect()
                let connectedAt = timeline.now()
                event(.connected(reconnected: connectedBefore))
                connectedBefore = true
                for await frame in frames { event(.frame(frame)) }
                let code = await channel.lastServerClose().map(WebSocketCloseCode.init(rawValue:))
                if let code, !code.shouldReconnect, !Task.isCancelled {
                    event(.refused(code))
                    return
                }
                end = .closed(code, upFor: timeline.now().timeIntervalSince(connectedAt))
            } catch {
                end = .connectFailed
            }
            if Task.isCancelled { return }
            event(.lost)
            let now = timeline.now()
            _ = random.draw { run.plan.ended(end, now: now, using: &$0) }
            do { try await wait(run) } catch { return }
        }
    }

    /// A REST call to the server this stream goes to succeeded: an outage's wait ends within a second.
    func serverAnswered() {
        guard let run = active else { return }
        let now = timeline.now()
        let moved = random.draw { run.plan.serverAnswered(now: now, using: &$0) }
        if moved != nil { run.sleeper?.cancel() }
    }

    /// Sleeps until the plan's `wakeAt`, which `serverAnswered` may move sooner while it sleeps.
    private func wait(_ run: Run) async throws {
        let timeline = self.timeline
        while let wake = run.plan.wakeAt, wake > timeline.now() {
            let sleeper = Task { try await timeline.sleep(until: wake) }
            run.sleeper = sleeper
            await withTaskCancellationHandler {
                _ = await sleeper.result
            } onCancel: {
                sleeper.cancel()
            }
            run.sleeper = nil
            try Task.checkCancellation()
        }
    }
}
