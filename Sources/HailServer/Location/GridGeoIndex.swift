import Foundation
import HailCore

/// An in-memory index of driver positions on a grid of cells about 550 m tall, for "who is near here"
/// in time proportional to the drivers nearby, not the fleet.
///
/// Pure value: the caller says when (`seenAt`) and asks to evict by date.
public struct GridGeoIndex: Sendable {
    /// One driver's indexed position.
    public struct Entry: Sendable, Hashable {
        /// The driver's id.
        public var driverID: String
        /// Where they last were.
        public var coordinate: Coordinate
        /// When the server last heard from the driver: that position, or a keep-alive without a fix since.
        public var seenAt: Date
    }

    private struct Cell: Hashable {
        var row: Int
        var column: Int
    }

    /// Cell size in degrees of latitude and longitude (0.005 deg is ~550 m north-south, ~400 m east-west at 43 N).
    public let cellDegrees: Double
    private var entries: [String: Entry] = [:]
    private var cells: [Cell: Set<String>] = [:]

    /// Creates an empty index.
    public init(cellDegrees: Double = 0.005) { self.cellDegrees = cellDegrees }

    /// How many drivers are indexed.
    public var count: Int { entries.count }

    /// The entry for `driverID`, if indexed.
    public func entry(for driverID: String) -> Entry? { entries[driverID] }

    /// Puts or moves `driverID` to `coordinate`, seen at `seenAt`.
    public mutating func update(driverID: String, coordinate: Coordinate, seenAt: Date) {
        let cell = self.cell(for: coordinate)
        if let old = entries[driverID] {
            let oldCell = self.cell(for: old.coordinate)
            if oldCell != cell { removeFromCell(driverID, oldCell) }
        }
        entries[driverID] = Entry(driverID: driverID, coordinate: coordinate, seenAt: seenAt)
        cells[cell, default: []].insert(driverID)
    }

    /// Removes `driverID`; returns whether it was indexed.
    @discardableResult
    public mutating func remove(driverID: String) -> Bool {
        guard let old = entries.removeValue(forKey: driverID) else { return false }
        removeFromCell(driverID, cell(for: old.coordinate))
        return true
    }

    /// Removes every driver last seen before `cutoff`; returns their ids, sorted.
    public mutating func evict(seenBefore cutoff: Date) -> [String] {
        let stale = entries.values.filter { $0.seenAt < cutoff }.map(\.driverID).sorted()
        for driverID in stale { remove(driverID: driverID) }
        return stale
    }

    /// Up to `limit` drivers within `radius` metres of `center`, nearest first (ties by id), that pass `include`.
    public func nearest(
        to center: Coordinate,
        radius: Double,
        limit: Int,
        where include: (Entry) -> Bool = { _ in true }
    ) -> [(entry: Entry, distance: Double)] {
        guard limit > 0 else { return [] }
        let origin = cell(for: center)
        // Rows are at least ~550 m apart; columns shrink with latitude, so widen by 1/cos(lat).
        let metresPerRow = cellDegrees * 111_195
        let metresPerColumn = max(1, metresPerRow * cos(center.lat * .pi / 180))
        let rowReach = Int((radius / metresPerRow).rounded(.up))
        let columnReach = min(Int((radius / metresPerColumn).rounded(.up)), Int(360 / cellDegrees))
        var found: [(entry: Entry, distance: Double)] = []
        func take(_ ids: Set<String>) {
            for id in ids {
                guard let entry = entries[id], include(entry) else { continue }
                let distance = center.distance(to: entry.coordinate)
                if distance <= radius { found.append((entry, distance)) }
            }
        }
        let rows = (origin.row - rowReach)...(origin.row + rowReach)
        let columns = (origin.column - columnReach)...(origin.column + columnReach)
        if cells.count < rows.count * columns.count {
            // Fewer occupied cells than the square has: visit those (a 20 km search of a city's few hundred
            // cells, or of an empty index, instead of thousands of empty lookups).
            for (cell, ids) in cells where rows.contains(cell.row) && columns.contains(cell.column) { take(ids) }
        } else {
            for row in rows {
                for column in columns {
                    if let ids = cells[Cell(row: row, column: column)] { take(ids) }
                }
            }
        }
        found.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.entry.driverID < $1.entry.driverID }
        return Array(found.prefix(limit))
    }

    private func cell(for coordinate: Coordinate) -> Cell {
        Cell(
            row: Int((coordinate.lat / cellDegrees).rounded(.down)),
            column: Int((coordinate.lng / cellDegrees).rounded(.down)))
    }

    private mutating func removeFromCell(_ driverID: String, _ cell: Cell) {
        cells[cell]?.remove(driverID)
        if cells[cell]?.isEmpty == true { cells[cell] = nil }
    }
}
