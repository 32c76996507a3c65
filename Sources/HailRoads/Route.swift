import HailCore

/// A driving route: how far, how long, the path to draw and the edges it uses.
public struct Route: Sendable, Hashable {
    /// The length in metres.
    public var distance: Double
    /// The driving time in seconds at the roads' speeds (no traffic, no turn costs).
    public var duration: Double
    /// The path from start to end, including the snapped end points when the route began off a node.
    public var coordinates: [Coordinate]
    /// The edge ids in driving order (a partly driven first or last edge included).
    public var edges: [Int]
    /// The seconds from the start at which the car passes each coordinate, at the roads' speeds.
    public var times: [Double]

    /// Creates a route; without `times` the car is assumed to keep one speed along the whole path.
    public init(distance: Double, duration: Double, coordinates: [Coordinate], edges: [Int], times: [Double]? = nil) {
        self.distance = distance
        self.duration = duration
        self.coordinates = coordinates
        self.edges = edges
        if let times, times.count == coordinates.count {
            self.times = times
        } else {
            let total = coordinates.pathLength
            var travelled = 0.0
            var uniform: [Double] = []
            for (index, coordinate) in coordinates.enumerated() {
                if index > 0 { travelled += coordinates[index - 1].distance(to: coordinate) }
                uniform.append(total > 0 ? duration * travelled / total : 0)
            }
            self.times = uniform
        }
    }

    /// Where the car is `seconds` after the start, with the bearing of the segment it is on; nil for an
    /// empty route. Before the start it is at the start, after the end at the end.
    public func position(atSeconds seconds: Double) -> (coordinate: Coordinate, bearing: Double)? {
        guard let first = coordinates.first else { return nil }
        guard coordinates.count > 1 else { return (first, 0) }
        // The first segment whose end time is at or after `seconds` (binary search: times never decrease).
        var low = 1
        var high = coordinates.count - 1
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < seconds { low = middle + 1 } else { high = middle }
        }
        let start = coordinates[low - 1]
        let end = coordinates[low]
        let span = times[low] - times[low - 1]
        let fraction = span > 0 ? (seconds - times[low - 1]) / span : 1
        return (start.interpolated(to: end, fraction: fraction), start.bearing(to: end))
    }
}
