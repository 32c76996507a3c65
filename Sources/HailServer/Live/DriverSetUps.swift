import Foundation
import HailCore
import Synchronization

/// The backend reads of opening driver streams, batched (`SetUpBatches`): each stream's active trip, its shared
/// ingest state made ready for its first batch (`Fleet.prepare`), and its live offer, asked for many streams in one
/// PostgreSQL query and a few pipelined Redis round trips.
final class DriverSetUps: Sendable {
    /// What a stream's setup found.
    struct Found: Sendable {
        /// The driver's active trip; nil for none, or when the trip store did not answer (`tripKnown` false).
        var active: TripRecord?
        /// Whether the trip store answered: only an answer may say "no trip" (else the first batch looks again).
        var tripKnown: Bool
        /// The live offer the driver holds.
        var offer: DispatchMachine.Offer?
    }

    /// One batch's answers.
    private struct Answers: Sendable {
        /// The active trips by driver; nil when the trip store did not answer.
        let active: [String: TripRecord]?
        let offers: [String: DispatchMachine.Offer]

        func found(_ driverID: String) -> Found {
            Found(active: active?[driverID], tripKnown: active != nil, offer: offers[driverID])
        }
    }

    private struct Waiter {
        let driverID: String
        let continuation: CheckedContinuation<Found, Never>
    }

    private struct State {
        var batches: SetUpBatches<UInt64>
        var nextTicket: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
    }

    /// The most streams one batch sets up: one query and one pipeline each of this many.
    static let maxBatch = 500
    /// Batches at work at once: one reads while the other's answers are handed out.
    static let maxRunning = 2

    private let services: ServerServices
    private let state: Mutex<State>

    /// Set-ups over `services`' stores.
    init(services: ServerServices) {
        self.services = services
        state = Mutex(State(batches: SetUpBatches(maxBatch: Self.maxBatch, maxRunning: Self.maxRunning)))
    }

    /// What `driverID`'s opening stream needs, read with the other streams opening meanwhile.
    func setUp(driverID: String) async -> Found {
        await withCheckedContinuation { continuation in
            let action = state.withLock { state -> SetUpBatches<UInt64>.Action in
                state.nextTicket += 1
                state.waiters[state.nextTicket] = Waiter(driverID: driverID, continuation: continuation)
                return state.batches.arrived(state.nextTicket)
            }
            carryOut(action)
        }
    }

    private func carryOut(_ action: SetUpBatches<UInt64>.Action) {
        guard case .start(let tickets) = action else { return }
        let driverIDs = state.withLock { state in tickets.compactMap { state.waiters[$0]?.driverID } }
        let ids = Array(Set(driverIDs)).sorted()
        Task {
            // A batch answers many streams: one whose backends hang must not hold every later stream's setup.
            // Past the request deadline its streams go on without (the first batch looks their trip up again).
            let answers: Answers =
                if let deadline = services.configuration.requestDeadline {
                    await firstWithin(deadline) { await self.lookUp(ids) } ?? Answers(active: nil, offers: [:])
                } else {
                    await lookUp(ids)
                }
            let (waiters, next) = state.withLock { state in
                (tickets.compactMap { state.waiters.removeValue(forKey: $0) }, state.batches.finished())
            }
            carryOut(next)
            for waiter in waiters { waiter.continuation.resume(returning: answers.found(waiter.driverID)) }
        }
    }

    /// One batch's reads: the active trips in one query, the stores made ready, the offers in one round trip.
    private func lookUp(_ driverIDs: [String]) async -> Answers {
        var active: [String: TripRecord]?
        do {
            if driverIDs.count == 1, let driverID = driverIDs.first {
                // Alone: the store's indexed read of one driver (an embedded store's list filter reads every trip).
                active = try await services.trips.activeRecord(driverID: driverID).map { [driverID: $0] } ?? [:]
            } else {
                var byDriver: [String: TripRecord] = [:]
                // In the store's order (by id): a driver's first is the one `activeRecord(driverID:)` picks.
                for record in try await services.trips.activeRecords(driverIDs: driverIDs) {
                    guard let driverID = record.driverID, byDriver[driverID] == nil else { continue }
                    byDriver[driverID] = record
                }
                active = byDriver
            }
        } catch {
            active = nil
        }
        if let active { await services.fleet.prepare(driverIDs: driverIDs, active: active) }
        let offers = await services.dispatcher.currentOffers(for: driverIDs)
        return Answers(active: active, offers: offers)
    }
}
