import Foundation
import HailCore
import HailRoads
import HailTesting
import Testing

@Suite("OSM PBF reader")
struct OSMPBFReaderTests {
    @Test(
        "Monaco: every node, way and relation of the file",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoCounts() throws {
        let extract = try #require(MonacoFixture.extract)
        #expect(extract.nodeCount == 180_118)
        #expect(extract.ways.count == 27_377)
        #expect(extract.relationCount == 212)
        #expect(extract.blockCount == 3)
        // Every coordinate lies in the extract's bounding box.
        #expect(extract.nodeLatitudes.allSatisfy { (43.70...43.78).contains($0) })
        #expect(extract.nodeLongitudes.allSatisfy { (7.34...7.50).contains($0) })
    }

    @Test(
        "Monaco: tags decode from the string table",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func monacoTags() throws {
        let extract = try #require(MonacoFixture.extract)
        let highways = extract.ways.filter { $0.tags["highway"] != nil }
        #expect(highways.count == 2_927)
        #expect(extract.ways.filter { $0.tags["junction"] == "roundabout" }.count == 48)
        #expect(highways.filter { $0.tags["oneway"] == "yes" }.count == 643)
        #expect(highways.filter { $0.tags["oneway"] == "-1" }.count == 3)
        // Delta-decoded refs point at nodes of the file.
        let ids = Set(extract.nodeIDs)
        #expect(highways.allSatisfy { $0.nodeRefs.allSatisfy(ids.contains) })
    }

    @Test("an empty file has no header")
    func emptyFile() {
        #expect(throws: PBFError.missingField("OSMHeader")) { try OSMPBFReader.read([]) }
    }

    @Test(
        "truncated at every length of the header block and at sampled lengths of the first data block",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func truncation() throws {
        let bytes = try #require(MonacoFixture.bytes)
        let headerEnd = PBFFixtures.blockEnd(bytes, after: 0)
        let dataEnd = PBFFixtures.blockEnd(bytes, after: headerEnd)
        #expect(headerEnd == 203)
        for length in 0..<headerEnd {
            #expect(throws: PBFError.self) { try OSMPBFReader.read(Array(bytes[0..<length])) }
        }
        // The header alone is a valid, empty file.
        #expect(try OSMPBFReader.read(Array(bytes[0..<headerEnd])).nodeCount == 0)
        for length in stride(from: headerEnd + 1, to: dataEnd, by: 997) {
            #expect(throws: PBFError.self) { try OSMPBFReader.read(Array(bytes[0..<length])) }
        }
    }

    @Test("random bytes throw typed errors")
    func randomBytes() {
        var generator = SplitMix64(seed: 6)
        var outcomes: [String: Int] = [:]
        for _ in 0..<500 {
            let count = Int.random(in: 0..<300, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            do {
                _ = try OSMPBFReader.read(bytes)
                outcomes["read", default: 0] += 1
            } catch {
                outcomes[String(describing: error).prefix(12).description, default: 0] += 1
            }
        }
        #expect(outcomes["read"] == nil)
    }

    @Test(
        "a raw (uncompressed) copy of Monaco reads the same, and mutated copies never crash",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func rawAndMutated() throws {
        let bytes = try #require(MonacoFixture.bytes)
        let headerEnd = PBFFixtures.blockEnd(bytes, after: 0)
        let firstData = try PBFFixtures.firstDataBlock(bytes)
        let raw = Array(bytes[0..<headerEnd]) + PBFFixtures.rawBlock(type: "OSMData", content: firstData)
        let extract = try OSMPBFReader.read(raw)
        // The first data block holds every node of the file; ways and relations follow in two more.
        #expect(extract.nodeCount == 180_118)
        #expect(extract.ways.isEmpty)
        var generator = SplitMix64(seed: 66)
        var failures = 0
        for _ in 0..<40 {
            var mutated = firstData
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let file = Array(bytes[0..<headerEnd]) + PBFFixtures.rawBlock(type: "OSMData", content: mutated)
            do { _ = try OSMPBFReader.read(file) } catch { failures += 1 }
        }
        #expect(failures == 24)
    }

    @Test(
        "mutated copies of the ways and relations blocks never crash",
        .enabled(if: SharedData.isAvailable, "needs ../shared/data/osm/monaco.osm.pbf"))
    func mutatedWaysAndRelations() throws {
        let bytes = try #require(MonacoFixture.bytes)
        let blocks = try OSMPBFReader.blocks(bytes)
        #expect(blocks.map(\.type) == ["OSMHeader", "OSMData", "OSMData", "OSMData"])
        let header = PBFFixtures.rawBlock(type: "OSMHeader", content: blocks[0].content)
        var generator = SplitMix64(seed: 666)
        var outcomes: [Int] = []
        for block in blocks[2...3] {
            let clean = try OSMPBFReader.read(header + PBFFixtures.rawBlock(type: "OSMData", content: block.content))
            #expect(clean.ways.count + clean.relationCount > 0)
            var failures = 0
            for _ in 0..<100 {
                var mutated = block.content
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let index = Int.random(in: 0..<mutated.count, using: &generator)
                    mutated[index] = UInt8.random(in: 0...255, using: &generator)
                }
                do {
                    _ = try OSMPBFReader.read(header + PBFFixtures.rawBlock(type: "OSMData", content: mutated))
                } catch {
                    failures += 1
                }
            }
            outcomes.append(failures)
        }
        #expect(outcomes == [71, 73])
    }

    @Test("blob sizes over the spec's limits are refused before reading")
    func sizeLimits() {
        // A 4-byte header length of 65537.
        #expect(throws: PBFError.blobHeaderTooLarge(65_537)) {
            try OSMPBFReader.read([0, 1, 0, 1] + [UInt8](repeating: 0, count: 8))
        }
        let hugeHeader = PBFFixtures.blobHeader(type: "OSMData", dataSize: 32 * 1024 * 1024 + 1)
        #expect(throws: PBFError.blobTooLarge(33_554_433)) {
            try OSMPBFReader.read(PBFFixtures.bigEndian(hugeHeader.count) + hugeHeader)
        }
        let negative = PBFFixtures.blobHeader(type: "OSMData", dataSize: -1)
        #expect(throws: PBFError.blobTooLarge(-1)) {
            try OSMPBFReader.read(PBFFixtures.bigEndian(negative.count) + negative)
        }
    }

    @Test("unsupported compression and missing raw_size are typed errors")
    func compression() {
        let header = PBFFixtures.rawBlock(type: "OSMHeader", content: [])
        let lzma = PBFFixtures.block(type: "OSMData", blob: PBFFixtures.field(4, bytes: [1, 2, 3]))
        #expect(throws: PBFError.unsupportedCompression("lzma")) { try OSMPBFReader.read(header + lzma) }
        let noSize = PBFFixtures.block(type: "OSMData", blob: PBFFixtures.field(3, bytes: [0x78, 0x9c]))
        #expect(throws: PBFError.missingField("Blob.raw_size")) { try OSMPBFReader.read(header + noSize) }
        let bad = PBFFixtures.block(
            type: "OSMData", blob: PBFFixtures.varintField(2, 10) + PBFFixtures.field(3, bytes: [0x78, 0x9c, 1, 2]))
        #expect(throws: PBFError.self) { try OSMPBFReader.read(header + bad) }
    }

    @Test("a required feature the reader lacks is refused")
    func requiredFeature() {
        let header = PBFFixtures.rawBlock(
            type: "OSMHeader", content: PBFFixtures.field(4, bytes: Array("HistoricalInformation".utf8)))
        #expect(throws: PBFError.unsupportedFeature("HistoricalInformation")) { try OSMPBFReader.read(header) }
    }

    @Test("a hand-built block: dense nodes with offsets and granularity, a way with tags")
    func handBuilt() throws {
        let strings =
            PBFFixtures.field(1, bytes: []) + PBFFixtures.field(1, bytes: Array("highway".utf8))
            + PBFFixtures.field(1, bytes: Array("residential".utf8))
        let dense =
            PBFFixtures.field(1, bytes: PBFFixtures.packedSigned([10, 1, 5]))
            + PBFFixtures.field(8, bytes: PBFFixtures.packedSigned([437_000, 100, -50]))
            + PBFFixtures.field(9, bytes: PBFFixtures.packedSigned([74_000, 10, 10]))
        let way =
            PBFFixtures.varintField(1, 77) + PBFFixtures.field(2, bytes: PBFFixtures.packed([1]))
            + PBFFixtures.field(3, bytes: PBFFixtures.packed([2]))
            + PBFFixtures.field(8, bytes: PBFFixtures.packedSigned([10, 1, 5]))
        let group = PBFFixtures.field(2, bytes: dense) + PBFFixtures.field(3, bytes: way)
        let block =
            PBFFixtures.field(2, bytes: group) + PBFFixtures.field(1, bytes: strings)
            + PBFFixtures.varintField(17, 1000) + PBFFixtures.varintField(19, 1_000_000)
        let file =
            PBFFixtures.rawBlock(type: "OSMHeader", content: []) + PBFFixtures.rawBlock(type: "OSMData", content: block)
        let extract = try OSMPBFReader.read(file)
        #expect(extract.nodeIDs == [10, 11, 16])
        // lat = 1e-9 * (lat_offset + granularity * value): nanodegrees.
        #expect(extract.nodeLatitudes.map { ($0 * 1e9).rounded() } == [438_000_000, 438_100_000, 438_050_000])
        #expect(extract.nodeLongitudes.map { ($0 * 1e9).rounded() } == [74_000_000, 74_010_000, 74_020_000])
        #expect(extract.ways == [OSMWay(id: 77, nodeRefs: [10, 11, 16], tags: ["highway": "residential"])])
    }
}
