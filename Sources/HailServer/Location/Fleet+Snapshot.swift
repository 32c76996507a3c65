import Foundation
import HailCore

extension Fleet {
    /// The cars the operator's map shows: the drivers serving `activeTrips`, and the idle online drivers
    /// the geo index finds within its search radius of `center`, each with its last published position.
    ///
    /// Fleet keeps no public list of its drivers, so idle drivers come from the same geo query dispatch
    /// uses; a driver far from `center` or evicted for silence is not shown.
    public func snapshotCars(activeTrips: [TripRecord], around center: Coordinate, limit: Int = 5000) async throws
        -> [FleetSnapshot.Car]
    {
        var serving: [String: TripRecord] = [:]
        for record in activeTrips {
            if let driverID = record.driverID { serving[driverID] = record }
        }
        let idle = try await availableDrivers(near: center, excluding: Set(serving.keys), limit: limit)
        var cars: [FleetSnapshot.Car] = []
        for driverID in Set(serving.keys).union(idle.map(\.driverID)).sorted() {
            guard let location = await position(driverID: driverID) else { continue }
            let status = await status(driverID: driverID)
            let record = serving[driverID]
            cars.append(
                FleetSnapshot.Car(
                    driverID: driverID, location: location, online: status.online, degraded: status.degraded,
                    tripID: record?.trip.id, tripState: record?.trip.state))
        }
        return cars
    }
}
