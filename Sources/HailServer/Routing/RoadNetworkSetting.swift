import HailRoads

/// Which road network the server routes on: none (straight-line estimates only), an OpenStreetMap file,
/// the generated test city, or one already loaded.
public enum RoadNetworkSetting: Sendable {
    /// No roads: every estimate is the straight-line one.
    case none
    /// An `.osm.pbf` file, read once when the services start.
    case file(String)
    /// The generated city for `seed` (tests and the demo's built-in map).
    case generatedCity(seed: UInt64)
    /// A network the caller loaded itself, so a command can report a bad file before the server starts.
    case loaded(RoadNetwork)
}
