import Foundation
import HailCore
import HailDriver
import HailServer

/// The crash loop's verdicts: each list names what went wrong, so an empty list is a pass and a
/// non-empty one says exactly which trip, version or action.
@MainActor
struct CrashLoopReport {
    let log: ServerLog
    let riders: [CrashLoopRider]
    let drivers: [CrashLoopDriver]
    let kills: Int

    /// Every trip version some client was sent or applied, by client.
    private var seen: [(client: String, sighting: TripSighting)] {
        var seen: [(client: String, sighting: TripSighting)] = []
        for rider in riders {
            seen += rider.sightings.all.map { (rider.id, $0) }
            seen += rider.applied.map { (rider.id, $0) }
        }
        for driver in drivers { seen += driver.applied.map { (driver.id, $0) } }
        return seen
    }

    /// Versions some client saw or applied that the durable log does not hold in that state.
    var lost: [String] {
        var missing: Set<String> = []
        for (client, sighting) in seen {
            let logged = log.events[sighting.tripID]?.first { $0.version == sighting.version }
            if logged?.state != sighting.state {
                missing.insert(
                    "\(client) saw \(sighting), the log has \(logged.map { "\($0.state.rawValue)" } ?? "nothing")")
            }
        }
        return missing.sorted()
    }

    /// Per client and trip, versions applied out of order or twice.
    var appliedOutOfOrder: [String] {
        var problems: [String] = []
        let clients = riders.map { ($0.id, $0.applied) } + drivers.map { ($0.id, $0.applied) }
        for (client, applied) in clients {
            for (tripID, versions) in Dictionary(grouping: applied, by: \.tripID) {
                let order = versions.map(\.version)
                if zip(order, order.dropFirst()).contains(where: { $0 >= $1 }) {
                    problems.append("\(client) applied \(tripID) versions \(order)")
                }
            }
        }
        return problems.sorted()
    }

    /// Logs with a gap or a repeat in their versions, an intent logged twice, or a record that is not
    /// the last line.
    var malformedLogs: [String] {
        var problems: [String] = []
        for (tripID, trip) in log.trips {
            let events = log.events[tripID] ?? []
            if events.map(\.version) != Array(1...max(events.count, 1)) || events.isEmpty {
                problems.append("\(tripID) versions \(events.map(\.version))")
            }
            let repeated = Dictionary(grouping: events, by: \.intent).filter { $0.value.count > 1 }.keys
            if !repeated.isEmpty { problems.append("\(tripID) repeats \(repeated.sorted())") }
            if events.last?.version != trip.version || events.last?.state != trip.state {
                problems.append("\(tripID) record v\(trip.version) \(trip.state.rawValue) is not its last event")
            }
        }
        return problems.sorted()
    }

    /// Driver actions not applied exactly once (refused ones exactly never), and outboxes not empty.
    var outboxMismatches: [String] {
        var problems: [String] = []
        for driver in drivers {
            if !driver.model.outbox.entries.isEmpty {
                problems.append("\(driver.id) still queues \(driver.model.outbox.pendingIntents)")
            }
            var expected: [String: Int] = [:]
            for (key, intent) in driver.queued {
                let slot = "\(intent.tripID) \(Self.logName(intent.kind))"
                expected[slot, default: 0] += driver.rejected[key] == nil ? 1 : 0
            }
            for (slot, count) in expected {
                let parts = slot.split(separator: " ").map(String.init)
                let applied = (log.events[parts[0]] ?? []).filter {
                    $0.intent == parts[1] && $0.actor == "driver:\(driver.id)"
                }.count
                if applied != count {
                    problems.append("\(driver.id) \(slot): queued and confirmed \(count), logged \(applied)")
                }
            }
        }
        return problems.sorted()
    }

    /// Trips whose final state differs from what their rider or driver last applied, except the
    /// cancellations listed in `cancellationsDriversMissed`.
    var finalStateMismatches: [String] {
        var problems: [String] = []
        for (tripID, trip) in log.trips {
            let clients =
                riders.map { ($0.id, $0.applied) }
                + drivers.filter { $0.id == trip.driver?.id }.map { ($0.id, $0.applied) }
            for (client, applied) in clients {
                guard let last = applied.last(where: { $0.tripID == tripID }) else { continue }
                if Self.isMissedCancellation(trip: trip, client: client, last: last) { continue }
                if last.version != trip.version || last.state != trip.state {
                    problems.append(
                        "\(tripID) is v\(trip.version) \(trip.state.rawValue), \(client) last applied \(last)")
                }
            }
            let rider = riders.first { $0.sightings.all.contains { $0.tripID == tripID } }
            if let rider, let finished = rider.finished[tripID], finished != trip.state {
                problems.append("\(tripID) is \(trip.state.rawValue), \(rider.id) saw it end \(finished.rawValue)")
            }
        }
        return problems.sorted()
    }

    /// Trips cancelled (by their rider) whose driver last applied them in an active state: the driver
    /// was never sent the cancellation and dropped the trip without learning how it ended. Must be empty:
    /// on reconnect the driver stream sends only the active trip, so the driver app reads a shown trip the
    /// server no longer has active by id (see `CrashLoopMissedCancelTests`).
    var cancellationsDriversMissed: [String] {
        var problems: [String] = []
        for (tripID, trip) in log.trips {
            for driver in drivers where driver.id == trip.driver?.id {
                guard let last = driver.applied.last(where: { $0.tripID == tripID }),
                    Self.isMissedCancellation(trip: trip, client: driver.id, last: last)
                else { continue }
                problems.append("\(tripID) is v\(trip.version) cancelled, \(driver.id) last applied \(last)")
            }
        }
        return problems.sorted()
    }

    private static func isMissedCancellation(trip: Trip, client: String, last: TripSighting) -> Bool {
        client.hasPrefix("driver-") && trip.state == .cancelled && last.state.isActive
    }

    /// Positions a rider applied with a seq not above the one before, on the same trip.
    var positionsBackwards: [String] {
        var problems: [String] = []
        for rider in riders {
            for (tripID, positions) in Dictionary(grouping: rider.positions, by: \.tripID) {
                let seqs = positions.map(\.seq)
                if zip(seqs, seqs.dropFirst()).contains(where: { $0 >= $1 }) {
                    problems.append("\(rider.id) on \(tripID) applied seqs \(seqs)")
                }
            }
        }
        return problems.sorted()
    }

    /// One line for the test log: what the loop went through.
    var summary: String {
        let states = Dictionary(grouping: log.trips.values, by: \.state).mapValues(\.count)
            .map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", ")
        let events = log.events.values.map(\.count).reduce(0, +)
        let queued = drivers.map(\.queued.count).reduce(0, +)
        let refused = drivers.map(\.rejected.count).reduce(0, +)
        let dropped = riders.map(\.model.droppedPositions).reduce(0, +)
        let stale = riders.map(\.model.staleTripUpdates).reduce(0, +)
        let jumps = riders.map(\.model.jumps).reduce(0, +)
        let positions = riders.map(\.positions.count).reduce(0, +)
        let staleOffers = drivers.flatMap(\.rejected.values).filter { $0.contains("no live offer") }.count
        let checked = Set(seen.map { "\($0.client) \($0.sighting)" }).count
        return "crash loop: \(kills) kills; trips: \(states); \(events) events; \(checked) trip versions clients "
            + "saw or applied, each checked against the log; driver actions \(queued) (\(refused) refused, "
            + "\(staleOffers) of them accepts of an offer no longer live: lapsed, or forgotten by a restart); rider positions "
            + "applied \(positions), dropped \(dropped); stale trip updates \(stale), jumps \(jumps); "
            + "cancellations drivers missed \(cancellationsDriversMissed.count)"
    }

    /// The name the server logs a driver's action under.
    static func logName(_ kind: DriverIntent.Kind) -> String {
        switch kind {
        case .accept: return "offerAccepted"
        case .arrived: return "arrived"
        case .started: return "started"
        case .ended: return "ended"
        case .cancel: return "driverCancels"
        }
    }
}
