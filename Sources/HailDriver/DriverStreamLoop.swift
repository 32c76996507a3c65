import Foundation
import HailCore
import HailProtocol
import HailTime

/// Keeps the driver stream connected: connects, hands over every frame, and after a drop waits out the jittered
/// backoff and connects again, until its task is cancelled.
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
    }

    let channel: any DriverChannel
    let backoff: Backoff
    let timeline: Timeline
    let random: DriverRandom

    /// Runs until cancelled, telling `event` what happens.
    func run(_ event: @MainActor (Event) -> Void) async {
        var attempt = 0
        var connectedBefore = false
        while !Task.isCancelled {
            do {
                let frames = try await channel.connect()
                attempt = 0
                event(.connected(reconnected: connectedBefore))
                connectedBefore = true
                for await frame in frames { event(.frame(frame)) }
            } catch {}
            if Task.isCancelled { return }
            event(.lost)
            attempt += 1
            let delay = random.draw { backoff.delay(afterAttempt: attempt, using: &$0) }
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(delay)) } catch { return }
        }
    }
}
