import Foundation
import HailCore
import HailTime
import Synchronization

/// What a driver app's logging seams share: its event log, its clock, and the ledger that turns acknowledgements
/// into acknowledged fixes with their trip.
final class DriverRecorder: Sendable {
    let log: FleetLog
    let timeline: Timeline
    private let ledger = Mutex(FixLedger())
    private let routes = Mutex<[String: Double]>([:])

    init(log: FleetLog, timeline: Timeline) {
        self.log = log
        self.timeline = timeline
    }

    /// A new event stamped now.
    func event(_ kind: String) -> FleetEvent {
        FleetEvent(t: timeline.now().timeIntervalSince1970, ev: kind)
    }

    /// A batch went out: kept until its ack, logged with its newest fix (what a rider is shown of it).
    func sent(_ batch: LocationBatch, via: String) {
        ledger.withLock { $0.sent(batch) }
        var line = event("sent")
        line.seq = batch.seq
        line.via = via
        line.backlog = batch.backlog ? true : nil
        line.lastFixAt = batch.points.map(\.t).max()?.timeIntervalSince1970
        log.write(line)
    }

    /// The server acknowledged batch `seq`.
    func acknowledged(seq: Int64, via: String) {
        guard let batch = ledger.withLock({ $0.acknowledged(seq: seq) }) else { return }
        write(ledger.withLock { $0.attribute(batch.points) }, seq: seq, via: via, backlog: batch.backlog)
    }

    /// The server accepted a trip's end with `points`, the fixes it had not acknowledged.
    func acknowledgedWithEnd(_ points: [LocationPoint]) {
        guard !points.isEmpty else { return }
        let fixes = ledger.withLock {
            $0.acknowledged(points)
            return $0.attribute(points)
        }
        write(fixes, seq: nil, via: "ended", backlog: false)
    }

    /// The app shows `trip` now; when it is the trip's start on the app, the acknowledged fix where the car stood is
    /// logged as the trip's first (`via` `start`).
    func tripShown(_ trip: Trip) {
        let now = timeline.now()
        guard let origin = ledger.withLock({ $0.tripShown(id: trip.id, state: trip.state, now: now) }) else { return }
        write([FixLedger.Acknowledged(point: origin, tripID: trip.id)], seq: nil, via: "start", backlog: false)
    }

    /// Notes the length of the route the car drives for `tripID`, from its pickup to its dropoff.
    func drives(tripID: String, meters: Double) {
        routes.withLock {
            if $0.count > 200 { $0.removeAll() }
            $0[tripID] = meters
        }
    }

    /// The metres the car drove for `tripID`, if it drove it.
    func driven(tripID: String) -> Double? { routes.withLock { $0[tripID] } }

    /// One `fixes` line per trip the fixes were driven for (a batch rarely straddles two).
    private func write(_ fixes: [FixLedger.Acknowledged], seq: Int64?, via: String, backlog: Bool) {
        var groups: [(tripID: String?, fixes: [LocationPoint])] = []
        for fix in fixes {
            if let last = groups.indices.last, groups[last].tripID == fix.tripID {
                groups[last].fixes.append(fix.point)
            } else {
                groups.append((fix.tripID, [fix.point]))
            }
        }
        for group in groups {
            var line = event("fixes")
            line.seq = seq
            line.via = via
            line.backlog = backlog ? true : nil
            line.trip = group.tripID
            line.fixes = group.fixes.map { [$0.t.timeIntervalSince1970, $0.lat, $0.lng] }
            log.write(line)
        }
    }
}
