import HailCore

extension Fleet {
    /// How many drivers' marks are read in one round trip.
    static let repairChunk = 500

    /// Brings each driver's shared trip record to what the trip store says (`DriverTripRepair`); returns how many
    /// were rewritten. The marks are read first, then the trip store (`active`, the drivers' active trips, when the
    /// caller has not just read them; only those drivers' trips, not every active one), then, for a driver marked with a trip the store no longer calls theirs, that
    /// trip afresh; each write is conditional on the mark it was decided on. A driver whose state is unknown (no
    /// shared state, or their trip never looked up) is left to their next batch, which looks it up.
    public func repairTrips(of driverIDs: some Collection<String>, active known: [String: TripRecord]? = nil)
        async throws -> Int
    {
        let ids = Array(Set(driverIDs)).sorted()
        var marks: [String: DriverTripMark] = [:]
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + Self.repairChunk, ids.count)])
            marks.merge(try await ingestState.tripMarks(driverIDs: chunk)) { _, new in new }
            start += Self.repairChunk
        }
        guard !marks.isEmpty else { return 0 }
        let active: [String: TripRecord]
        if let known {
            active = known
        } else {
            var byDriver: [String: TripRecord] = [:]
            for record in try await trips.activeRecords(driverIDs: marks.keys.sorted()) {
                guard let driverID = record.driverID, marks[driverID] != nil else { continue }
                byDriver[driverID] = record
            }
            active = byDriver
        }
        var repaired = 0
        for (driverID, stored) in marks.sorted(by: { $0.key < $1.key }) {
            var current: TripRecord?
            if let tripID = DriverTripRepair.lookUp(stored: stored, active: active[driverID]) {
                current = try await trips.record(id: tripID)
            }
            let decision = DriverTripRepair.decide(
                driverID: driverID, stored: stored, active: active[driverID], current: current)
            guard case .write(let write) = decision, try await ingestState.repairTrip(write) else { continue }
            forgetCopy(driverID: driverID)
            repaired += 1
        }
        return repaired
    }
}
