import Foundation
import HailCore

extension Fleet {
    /// The cars the operator's map shows, each with its last published position: the drivers serving
    /// `activeTrips`, every online driver this node has ingested (however far from `center`), and the
    /// idle online drivers other nodes ingested that the geo index finds within its radius of `center`.
    public func snapshotCars(activeTrips: [TripRecord], around center: Coordinate, limit: Int = 5000) async throws
        -> [FleetSnapshot.Car]
    {
        var serving: [String: TripRecord] = [:]
        for record in activeTrips {
            if let driverID = record.driverID { serving[driverID] = record }
        }
        let idle = try await availableDrivers(near: center, excluding: Set(serving.keys), limit: limit)
        var cars: [FleetSnapshot.Car] = []
        let everyone = Set(serving.keys).union(idle.map(\.driverID)).union(await knownDriverIDs())
        for driverID in everyone.sorted() {
            guard cars.count < limit, let location = await position(driverID: driverID) else { continue }
            let status = await status(driverID: driverID)
            // Offline drivers leave the map unless a trip still holds them.
            guard status.online || serving[driverID] != nil else { continue }
            let record = serving[driverID]
            cars.append(
                FleetSnapshot.Car(
                    driverID: driverID, location: location, online: status.online, degraded: status.degraded,
                    tripID: record?.trip.id, tripState: record?.trip.state))
        }
        return cars
    }
}
