import Foundation
import HailCore
import HailProtocol
import HailTime

/// Keeps the driver stream connected: connects, hands over every frame, and after a drop waits out the jittered
/// backoff and connects again, until its task is cancelled or the server closes with a code that says not to
/// (`WebSocketCloseCode.shouldReconnect`); storage trouble closes with 1013, which is reconnected, and a draining
/// node 4012, reconnected after a jitter of its own (`move`) rather than the backoff; a stream that had stayed up
/// and dropped without a close frame (its node crashed: every driver it held drops at once) after `afterDrop`'s
/// draw over a few seconds, so the fleet does not land on the node left within one second.
///
/// The backoff starts over only after a stream that stayed up `steadyAfter` and was not closed with 1013: a server
/// whose storage is paused accepts the socket and closes it at once with 1013, and starting over on every such
/// connect reconnected twice a second for the whole outage, each time with the status, config, trip and location
/// requests a reconnect brings (16 apps took 1.5 cores in the fault suite's Redis pause).
@MainActor
struct DriverStreamLoop {
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

    /// Runs until cancelled, telling `event` what happens.
    func run(_ event: @MainActor (Event) -> Void) async {
        var attempt = 0
        var connectedBefore = false
        var moving = false
        var dropped = false
        while !Task.isCancelled {
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
                moving = code?.reconnectsAtOnce == true
                let steady = code != .tryAgainLater && timeline.now().timeIntervalSince(connectedAt) >= steadyAfter
                if steady { attempt = 0 }
                dropped = steady && code == nil
            } catch {
                moving = false
                dropped = false
            }
            if Task.isCancelled { return }
            event(.lost)
            // A draining node's "reconnect now, elsewhere" (4012) is no failure: a jitter, not the backoff.
            if !moving { attempt += 1 }
            let delay = random.draw {
                if moving { return move.delay(afterAttempt: 1, using: &$0) }
                if dropped { return afterDrop.delay(afterAttempt: 1, using: &$0) }
                return backoff.delay(afterAttempt: attempt, using: &$0)
            }
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(delay)) } catch { return }
        }
    }
}
