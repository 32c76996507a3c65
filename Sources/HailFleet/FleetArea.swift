import HailCore

/// The box where a fleet's riders are picked up and dropped off and its drivers start.
public struct FleetArea: Sendable, Hashable {
    /// The south-west corner.
    public var southWest: Coordinate
    /// The north-east corner.
    public var northEast: Coordinate

    /// A box between two corners.
    public init(southWest: Coordinate, northEast: Coordinate) {
        self.southWest = southWest
        self.northEast = northEast
    }

    /// Monaco's centre, the fault suite's load area (`scripts/faults/load.sh`).
    public static let monaco = FleetArea(
        southWest: Coordinate(lat: 43.7340, lng: 7.4180), northEast: Coordinate(lat: 43.7440, lng: 7.4300))

    /// A point drawn uniformly in the box.
    public func point(using random: inout SplitMix64) -> Coordinate {
        let u = Double(random.next() >> 11) / Double(1 << 53)
        let v = Double(random.next() >> 11) / Double(1 << 53)
        return Coordinate(
            lat: southWest.lat + u * (northEast.lat - southWest.lat),
            lng: southWest.lng + v * (northEast.lng - southWest.lng))
    }
}
