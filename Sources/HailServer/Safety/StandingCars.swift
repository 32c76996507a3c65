import Foundation

/// The cars on a trip (to the pickup or under way) standing on each road edge, as this node ingests them: a car on a
/// trip that stands where two others stand on the same edge is in a jam, which is no long stop. Only cars on a trip
/// count, since they are in traffic: idle drivers parked at a rank beside a stopped car would make a jam of a curb.
/// A car is forgotten from its edge when it moves, leaves the roads or its trip, or is not heard from for 30 s.
final class StandingCars: Sendable {
    /// How long a car's last standing position stands for it, seconds.
    static let freshSeconds: TimeInterval = 30
    /// How many other cars standing on the same edge make a jam.
    static let jamCars = 2

    private let edges = ShardedMap<Int, [String: Date]>()
    private let edgeOfDriver = ShardedMap<String, Int>()

    /// Notes the driver's car on `edge` (nil: off the roads, or not on a trip), standing or not, at `now`; true when
    /// at least `jamCars` other cars were seen standing on that edge within `freshSeconds`.
    func note(driverID: String, edge: Int?, standing: Bool, now: Date) -> Bool {
        let kept = standing ? edge : nil
        let previous = edgeOfDriver.withValue(driverID) { entry -> Int? in
            defer { entry = kept }
            return entry
        }
        if let previous, previous != kept {
            edges.withValue(previous) { cars in
                cars?[driverID] = nil
                if cars?.isEmpty == true { cars = nil }
            }
        }
        guard let kept else { return false }
        let others = edges.withValue(kept) { entry -> Int in
            var cars = (entry ?? [:]).filter { now.timeIntervalSince($0.value) <= Self.freshSeconds }
            cars[driverID] = now
            entry = cars
            return cars.count - 1
        }
        return others >= Self.jamCars
    }
}
