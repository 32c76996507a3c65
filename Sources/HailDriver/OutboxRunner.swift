import Foundation
import HailCore
import HailTime
import Observation

/// The driver's taps on their way to the server: each action saved before its first attempt, sent one at a time
/// under its idempotency key, retried at the backoff (at once when the network comes back), its confirmed trip
/// or its refusal handed back to the model.
@MainActor
@Observable
final class OutboxRunner {
    /// Trip actions waiting for the server, and refusals waiting to be shown.
    private(set) var outbox: Outbox

    @ObservationIgnored private let api: any DriverAPI
    @ObservationIgnored private let timeline: Timeline
    @ObservationIgnored private let random: DriverRandom
    @ObservationIgnored private let tasks: DriverTasks
    @ObservationIgnored private let saves: DriverSaves
    @ObservationIgnored private var running = false
    /// Told the trip the server confirmed for an action.
    @ObservationIgnored var confirmed: @MainActor (Trip) -> Void = { _ in }
    /// Told an action was refused: the trip may have moved on without us.
    @ObservationIgnored var refused: @MainActor () async -> Void = {}
    /// Told after every step this part takes.
    @ObservationIgnored var stepTaken: @MainActor () -> Void = {}

    /// A runner with an empty outbox retrying at `backoff`.
    init(
        api: any DriverAPI, timeline: Timeline, backoff: Backoff, random: DriverRandom, tasks: DriverTasks,
        saves: DriverSaves
    ) {
        self.api = api
        self.timeline = timeline
        self.random = random
        self.tasks = tasks
        self.saves = saves
        self.outbox = Outbox(backoff: backoff)
    }

    /// Picks up the outbox saved before a kill.
    func restore(_ saved: Outbox) {
        outbox = saved
    }

    /// Queues `intent` under a new key, on disk before its first attempt (a kill between the tap and the send
    /// must not lose the tap), and starts it.
    func enqueue(_ intent: DriverIntent) async {
        outbox.enqueue(intent, key: UUID(), now: timeline.now())
        await saves.save()
        stepTaken()
        kick()
    }

    /// The screen has shown the oldest refusal.
    func dismissRejection() async {
        guard let first = outbox.rejections.first else { return }
        outbox.dismissRejection(key: first.key)
        await saves.save()
        stepTaken()
    }

    /// The network is back: what waits for it is retried now rather than at its backoff.
    func connectivityRestored() {
        outbox.connectivityRestored(now: timeline.now())
        kick()
    }

    /// Sends what is due, unless a run is under way.
    func kick() {
        guard !running else { return }
        running = true
        tasks.spawn { [weak self] in await self?.run() }
    }

    /// Forgets the run under way, as a killed app would; the outbox stays saved.
    func shutdown() {
        running = false
    }

    private func run() async {
        while !Task.isCancelled {
            switch outbox.next(now: timeline.now()) {
            case .idle, .awaitingResult:
                running = false
                return
            case .wait(let until):
                let timeline = self.timeline
                tasks.start(.outboxWake) { [weak self] _ in
                    do { try await timeline.sleep(until: until) } catch { return }
                    self?.kick()
                }
                running = false
                return
            case .send(let entry):
                do {
                    let trip = try await send(entry)
                    outbox.succeeded(key: entry.key)
                    confirmed(trip)
                } catch let failure as CallError where failure.isRejection {
                    outbox.rejected(key: entry.key, reason: failure.message, code: failure.apiError?.code.rawValue)
                    await refused()
                } catch {
                    let failure = error.asCallError
                    let transient = failure.code == .noAnswer
                    random.draw {
                        outbox.failed(
                            key: entry.key, now: timeline.now(), transient: transient, retryAfter: failure.retryAfter,
                            using: &$0)
                    }
                }
                await saves.save()
                stepTaken()
            }
        }
    }

    private func send(_ entry: Outbox.Entry) async throws -> Trip {
        let tripID = entry.intent.tripID
        switch entry.intent.kind {
        case .accept: return try await api.accept(tripID: tripID, key: entry.key)
        case .arrived: return try await api.report(.arrived, tripID: tripID, key: entry.key, path: nil)
        case .started: return try await api.start(tripID: tripID, key: entry.key, pin: entry.intent.pin)
        case .ended: return try await api.report(.ended, tripID: tripID, key: entry.key, path: entry.intent.path)
        case .cancel: return try await api.cancel(tripID: tripID, key: entry.key)
        }
    }
}
