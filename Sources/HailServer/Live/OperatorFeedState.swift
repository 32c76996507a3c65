import Foundation
import HailCore
import HailProtocol

/// What the operator's viewers were last told, and the frames that bring them to a newer reading of the
/// fleet. Pure: the feed reads the fleet and the trips, hands them over with `now`, and sends what comes back.
struct OperatorFeedState: Sendable {
    /// The frames one tick sends: each encoded once and sent to every viewer, so a viewer costs at most
    /// three sends a tick however busy the fleet is.
    struct Delta: Sendable, Hashable {
        /// Essential: cars new or changed beyond their position, cars gone, trips changed.
        var changed: OperatorServerFrame?
        /// Disposable: cars that only moved.
        var moved: OperatorServerFrame?
        /// Disposable: the live numbers.
        var stats: OperatorServerFrame
    }

    /// The freshness budget the position ages are held to.
    static let budgetSeconds = 5.0

    private(set) var cars: [String: OperatorCar] = [:]
    private(set) var trips: [String: OperatorTrip] = [:]
    /// True once a reading was taken: before that there is no snapshot to give.
    private(set) var started = false

    /// The snapshot a new viewer starts from, consistent with the deltas that follow it.
    func snapshot(at now: Date, reconnects: Int, operability: OperabilityStats? = nil) -> OperatorServerFrame {
        .fleetSnapshot(
            at: now, cars: cars.values.sorted { $0.driverID < $1.driverID },
            trips: trips.values.sorted { $0.id < $1.id },
            stats: stats(at: now, reconnects: reconnects, operability: operability))
    }

    /// The car last read for `driverID`.
    func car(_ driverID: String) -> OperatorCar? { cars[driverID] }

    /// The ids of the trips last read.
    var tripIDs: [String] { trips.keys.sorted() }

    /// The trip last read with `id`.
    func trip(_ id: String) -> OperatorTrip? { trips[id] }

    /// Takes a new reading: `cars` and `trips` as they are now, `ended` the final records of trips that left
    /// the active set since the last reading (nil when it could not be read: the trip is dropped silently
    /// from the map). `path` gives the road between a car's previous position and its new one.
    mutating func advance(
        cars newCars: [OperatorCar], trips newTrips: [OperatorTrip], ended: [String: OperatorTrip],
        now: Date, reconnects: Int, operability: OperabilityStats? = nil, path: (OperatorCar, OperatorCar) -> String?
    ) -> Delta {
        let tripsByID = Dictionary(newTrips.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var changedCars: [OperatorCar] = []
        var moves: [OperatorCarMove] = []
        var next: [String: OperatorCar] = [:]
        for car in newCars.sorted(by: { $0.driverID < $1.driverID }) {
            next[car.driverID] = car
            guard let old = cars[car.driverID] else {
                changedCars.append(car)
                continue
            }
            if car.differsBeyondPosition(from: old) {
                changedCars.append(car)
            } else if car.location.seq > old.location.seq {
                moves.append(
                    OperatorCarMove(
                        driverID: car.driverID, location: car.location, path: path(old, car),
                        etaSeconds: car.tripID.flatMap { tripsByID[$0]?.etaSeconds }))
            }
        }
        let gone = cars.keys.filter { next[$0] == nil }.sorted()
        var changedTrips: [OperatorTrip] = []
        var nextTrips: [String: OperatorTrip] = [:]
        for trip in newTrips.sorted(by: { $0.id < $1.id }) {
            nextTrips[trip.id] = trip
            if let old = trips[trip.id], old.version >= trip.version { continue }
            changedTrips.append(trip)
        }
        for id in trips.keys.sorted() where nextTrips[id] == nil {
            if let final = ended[id], final.version > (trips[id]?.version ?? 0) { changedTrips.append(final) }
        }
        let firstReading = !started
        cars = next
        trips = nextTrips
        started = true
        let changed: OperatorServerFrame? =
            firstReading || (changedCars.isEmpty && gone.isEmpty && changedTrips.isEmpty)
            ? nil : .fleetChanged(at: now, cars: changedCars, carsGone: gone, trips: changedTrips)
        let moved: OperatorServerFrame? = firstReading || moves.isEmpty ? nil : .carsMoved(at: now, moves: moves)
        return Delta(
            changed: changed, moved: moved,
            stats: .fleetStats(at: now, stats: stats(at: now, reconnects: reconnects, operability: operability)))
    }

    /// The live numbers of the current reading at `now`, with this node's design numbers.
    func stats(at now: Date, reconnects: Int, operability: OperabilityStats? = nil) -> FleetStats {
        var byState: [String: Int] = [:]
        for trip in trips.values { byState[trip.state.rawValue, default: 0] += 1 }
        let watched: Set<TripState> = [.driverAssigned, .driverArrived, .onTrip]
        let ages = cars.values.filter { $0.tripState.map(watched.contains) ?? false }
            .map { max(0, now.timeIntervalSince($0.location.receivedAt)) }.sorted()
        return FleetStats(
            driversOnline: cars.values.filter(\.online).count,
            driversDegraded: cars.values.filter { $0.online && $0.degraded }.count, tripsByState: byState,
            positionAgeP50: Self.percentile(ages, 0.50), positionAgeP99: Self.percentile(ages, 0.99),
            budgetSeconds: Self.budgetSeconds, reconnects: reconnects, operability: operability)
    }

    /// The nearest-rank percentile of sorted `values`, rounded to a tenth of a second.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let rank = max(1, Int((fraction * Double(values.count)).rounded(.up)))
        return (values[min(values.count, rank) - 1] * 10).rounded() / 10
    }
}
