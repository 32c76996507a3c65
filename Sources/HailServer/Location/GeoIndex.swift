import Foundation
import HailCore
import Synchronization

/// Where drivers are, for dispatch and "nearby cars". Embedded: `MemoryGeoIndex`; scaled: Redis GEO sets.
///
/// Silence is a duration on the index's own clock: an index shared by nodes records when it saw each driver by
/// its own time and judges silence by it, so nodes whose clocks disagree never evict each other's drivers. `now`
/// and `seenAt` are the caller's clock, which an index of one process goes by.
public protocol GeoIndex: Sendable {
    /// Whether every node sees this state or only this process (`ServerServices.make` refuses a mix).
    var scope: StateScope { get }

    /// Puts or moves a driver, seen at `seenAt` (a shared index records its own time instead).
    func update(driverID: String, coordinate: Coordinate, seenAt: Date) async throws
    /// Removes a driver (offline, or silent too long).
    func remove(driverID: String) async throws
    /// Drivers within `radius` metres of `center`, nearest first, at most `limit`, each with how long it has been
    /// silent at `now`.
    func nearest(to center: Coordinate, radius: Double, limit: Int, now: Date) async throws -> [GeoHit]
    /// Removes every driver silent for more than `silence` seconds at `now` and returns their ids.
    func evict(silentFor silence: TimeInterval, now: Date) async throws -> [String]
}

/// One driver found near a point.
public struct GeoHit: Sendable, Hashable {
    /// The driver.
    public var driverID: String
    /// Their indexed position.
    public var coordinate: Coordinate
    /// Metres from the query's center.
    public var distance: Double
    /// Seconds since the driver was last heard from (a fix, or a keep-alive without one), by the index's clock;
    /// nil when the index cannot say.
    public var silence: TimeInterval?

    /// Creates a hit.
    public init(driverID: String, coordinate: Coordinate, distance: Double, silence: TimeInterval? = nil) {
        self.driverID = driverID
        self.coordinate = coordinate
        self.distance = distance
        self.silence = silence
    }
}

/// The embedded geo index: `GridGeoIndex`es, each behind its own lock, with every driver in the shard its id
/// picks. A position update (the hot path: every batch of every online driver, from every loop) locks one
/// shard; a search (dispatch, nearby cars: rare) asks every shard and merges their nearest.
public final class MemoryGeoIndex: GeoIndex {
    private final class Shard: Sendable {
        let grid: Mutex<GridGeoIndex>
        init(cellDegrees: Double) { grid = Mutex(GridGeoIndex(cellDegrees: cellDegrees)) }
    }

    private let shards: [Shard]

    /// Locks the drivers are spread over: enough that two loops rarely meet on one.
    static let shardCount = 16

    /// Creates an empty index.
    public init(cellDegrees: Double = 0.005) {
        shards = (0..<Self.shardCount).map { _ in Shard(cellDegrees: cellDegrees) }
    }

    private func shard(_ driverID: String) -> Shard {
        shards[Int(UInt(bitPattern: driverID.hashValue) % UInt(shards.count))]
    }

    /// How many drivers are indexed.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.grid.withLock { $0.count } } }

    /// Puts or moves a driver.
    public func update(driverID: String, coordinate: Coordinate, seenAt: Date) {
        shard(driverID).grid.withLock { $0.update(driverID: driverID, coordinate: coordinate, seenAt: seenAt) }
    }

    /// Removes a driver.
    public func remove(driverID: String) {
        shard(driverID).grid.withLock { _ = $0.remove(driverID: driverID) }
    }

    /// Drivers near `center`, nearest first (ties by id, as one grid orders them).
    public func nearest(to center: Coordinate, radius: Double, limit: Int, now: Date) -> [GeoHit] {
        var hits: [GeoHit] = []
        for shard in shards {
            hits += shard.grid.withLock { grid in
                grid.nearest(to: center, radius: radius, limit: limit).map {
                    GeoHit(
                        driverID: $0.entry.driverID, coordinate: $0.entry.coordinate, distance: $0.distance,
                        silence: max(0, now.timeIntervalSince($0.entry.seenAt)))
                }
            }
        }
        hits.sort { ($0.distance, $0.driverID) < ($1.distance, $1.driverID) }
        return Array(hits.prefix(max(0, limit)))
    }

    /// Removes drivers silent for more than `silence` seconds at `now`.
    public func evict(silentFor silence: TimeInterval, now: Date) -> [String] {
        let cutoff = now.addingTimeInterval(-silence)
        return shards.flatMap { shard in shard.grid.withLock { $0.evict(seenBefore: cutoff) } }.sorted()
    }
}

extension GeoIndex {
    /// This process's own, unless the conformer says otherwise.
    public var scope: StateScope { .process }
}
