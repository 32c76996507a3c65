import Foundation
import HailCore
import Synchronization

/// Where drivers are, for dispatch and "nearby cars". Embedded: `MemoryGeoIndex`; scaled: Redis GEO sets.
public protocol GeoIndex: Sendable {
    /// Puts or moves a driver.
    func update(driverID: String, coordinate: Coordinate, seenAt: Date) async throws
    /// Removes a driver (offline, or silent too long).
    func remove(driverID: String) async throws
    /// Drivers within `radius` metres of `center`, nearest first, at most `limit`.
    func nearest(to center: Coordinate, radius: Double, limit: Int) async throws -> [GeoHit]
    /// Removes every driver last seen before `cutoff` and returns their ids.
    func evict(seenBefore cutoff: Date) async throws -> [String]
}

/// One driver found near a point.
public struct GeoHit: Sendable, Hashable {
    /// The driver.
    public var driverID: String
    /// Their indexed position.
    public var coordinate: Coordinate
    /// Metres from the query's center.
    public var distance: Double

    /// Creates a hit.
    public init(driverID: String, coordinate: Coordinate, distance: Double) {
        self.driverID = driverID
        self.coordinate = coordinate
        self.distance = distance
    }
}

/// The embedded geo index: a `GridGeoIndex` behind a lock, shared by the connections of one process.
public final class MemoryGeoIndex: GeoIndex {
    private let grid: Mutex<GridGeoIndex>

    /// Creates an empty index.
    public init(cellDegrees: Double = 0.005) { grid = Mutex(GridGeoIndex(cellDegrees: cellDegrees)) }

    /// How many drivers are indexed.
    public var count: Int { grid.withLock { $0.count } }

    /// Puts or moves a driver.
    public func update(driverID: String, coordinate: Coordinate, seenAt: Date) {
        grid.withLock { $0.update(driverID: driverID, coordinate: coordinate, seenAt: seenAt) }
    }

    /// Removes a driver.
    public func remove(driverID: String) {
        grid.withLock { _ = $0.remove(driverID: driverID) }
    }

    /// Drivers near `center`, nearest first.
    public func nearest(to center: Coordinate, radius: Double, limit: Int) -> [GeoHit] {
        grid.withLock { grid in
            grid.nearest(to: center, radius: radius, limit: limit).map {
                GeoHit(driverID: $0.entry.driverID, coordinate: $0.entry.coordinate, distance: $0.distance)
            }
        }
    }

    /// Removes drivers silent since before `cutoff`.
    public func evict(seenBefore cutoff: Date) -> [String] {
        grid.withLock { $0.evict(seenBefore: cutoff) }
    }
}
