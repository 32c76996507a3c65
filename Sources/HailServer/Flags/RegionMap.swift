import HailCore

/// The city areas a flags file names, each a bounding box; a place's region is the first box that holds it.
///
/// Boxes may overlap: list the smaller, more specific area first (`monaco-port` before `monaco`). A box may not
/// cross the antimeridian (west must be less than east). Pure: the same map always gives the same answer.
public struct RegionMap: Sendable, Hashable {
    /// One named area.
    public struct Region: Sendable, Hashable {
        /// The name, as cohorts match it and metrics label it.
        public var name: String
        /// The southern edge, degrees of latitude.
        public var south: Double
        /// The western edge, degrees of longitude.
        public var west: Double
        /// The northern edge.
        public var north: Double
        /// The eastern edge.
        public var east: Double

        /// Creates an area.
        public init(name: String, south: Double, west: Double, north: Double, east: Double) {
            self.name = name
            self.south = south
            self.west = west
            self.north = north
            self.east = east
        }

        /// True when `coordinate` is inside the box or on its edge.
        public func contains(_ coordinate: Coordinate) -> Bool {
            (south...north).contains(coordinate.lat) && (west...east).contains(coordinate.lng)
        }
    }

    /// The areas in the file's order.
    public var regions: [Region]

    /// A map of `regions`, searched in order.
    public init(_ regions: [Region] = []) { self.regions = regions }

    /// The name of the first area holding `coordinate`; nil for none, or no coordinate.
    public func region(containing coordinate: Coordinate?) -> String? {
        guard let coordinate else { return nil }
        return regions.first { $0.contains(coordinate) }?.name
    }

    /// The names, in order.
    public var names: [String] { regions.map(\.name) }
}
