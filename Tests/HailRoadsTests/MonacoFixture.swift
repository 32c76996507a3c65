import Foundation
import HailRoads
import HailTesting

/// The Monaco extract read once and shared by every test that needs it.
enum MonacoFixture {
    static let url = SharedData.file("osm/monaco.osm.pbf")
    static let bytes: [UInt8]? = url.flatMap { try? Data(contentsOf: $0) }.map { [UInt8]($0) }
    static let extract: OSMExtract? = bytes.flatMap { try? OSMPBFReader.read($0) }
    static let graph: RoadGraph? = extract.map { RoadGraph(extract: $0) }
}
