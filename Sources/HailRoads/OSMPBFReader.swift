import Foundation

/// Reads OpenStreetMap PBF files (the `fileformat.proto` / `osmformat.proto` layout) into an `OSMExtract`.
///
/// The file is a sequence of blocks: a 4-byte big-endian length, a `BlobHeader` of that length, then a
/// `Blob` of `datasize` bytes holding raw or zlib-compressed content. The first block is an `OSMHeader`,
/// the rest `OSMData` blocks, each a `PrimitiveBlock` with its own string table and coordinate scale.
/// Unknown block types and unknown fields are skipped, as the spec asks.
public enum OSMPBFReader {
    /// The largest `BlobHeader` the spec allows (64 KiB).
    public static let maxBlobHeaderSize = 64 * 1024
    /// The largest `Blob`, compressed or not, the spec allows (32 MiB).
    public static let maxBlobSize = 32 * 1024 * 1024
    /// Header features this reader implements; any other required feature is refused.
    public static let supportedFeatures: Set<String> = ["OsmSchema-V0.6", "DenseNodes"]

    /// Reads the file at `url`; file-system errors are rethrown as they come, format errors as `PBFError`.
    public static func read(contentsOf url: URL) throws -> OSMExtract {
        let data = try Data(contentsOf: url)
        return try read([UInt8](data))
    }

    /// Reads a whole PBF file held in memory.
    public static func read(_ bytes: [UInt8]) throws(PBFError) -> OSMExtract {
        var extract = OSMExtract()
        try forEachBlock(bytes) { (type, content) throws(PBFError) in
            if type == "OSMData" {
                try readPrimitiveBlock(content, into: &extract)
                extract.blockCount += 1
            }
        }
        return extract
    }

    /// The file's blocks with their content uncompressed, for tools and tests that look inside the format.
    public static func blocks(_ bytes: [UInt8]) throws(PBFError) -> [PBFBlock] {
        var blocks: [PBFBlock] = []
        try forEachBlock(bytes) { (type, content) throws(PBFError) in
            blocks.append(PBFBlock(type: type, content: content))
        }
        return blocks
    }

    /// Walks the framing, checks the header, and hands each known block's uncompressed content to `body`.
    private static func forEachBlock(
        _ bytes: [UInt8], _ body: (String, [UInt8]) throws(PBFError) -> Void
    ) throws(PBFError) {
        var offset = 0
        var sawHeader = false
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw PBFError.truncated(offset: offset, what: "blob length") }
            let headerLength =
                Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            offset += 4
            guard headerLength <= maxBlobHeaderSize else { throw PBFError.blobHeaderTooLarge(headerLength) }
            guard bytes.count - offset >= headerLength else {
                throw PBFError.truncated(offset: offset, what: "BlobHeader")
            }
            let header = try readBlobHeader(ProtobufReader(bytes, range: offset..<(offset + headerLength)))
            offset += headerLength
            guard bytes.count - offset >= header.dataSize else {
                throw PBFError.truncated(offset: offset, what: "Blob")
            }
            let blobRange = offset..<(offset + header.dataSize)
            offset += header.dataSize
            switch header.type {
            case "OSMHeader":
                let content = try blobContent(ProtobufReader(bytes, range: blobRange))
                try checkHeaderBlock(content)
                sawHeader = true
                try body(header.type, content)
            case "OSMData":
                guard sawHeader else { throw PBFError.missingField("OSMHeader before the first OSMData") }
                try body(header.type, try blobContent(ProtobufReader(bytes, range: blobRange)))
            default:
                continue  // The spec: skip block types you do not understand.
            }
        }
        guard sawHeader else { throw PBFError.missingField("OSMHeader") }
    }

    // MARK: - Framing

    private static func readBlobHeader(_ reader: ProtobufReader) throws(PBFError) -> (type: String, dataSize: Int) {
        var reader = reader
        var type: String?
        var dataSize: Int?
        while let (field, wire) = try reader.readTag() {
            switch (field, wire) {
            case (1, .lengthDelimited): type = try reader.readString("BlobHeader.type")
            case (3, .varint):
                // int32 on the wire: a negative size arrives as a 64-bit two's complement varint.
                let raw = Int64(bitPattern: try reader.readVarint())
                guard raw >= 0, raw <= maxBlobSize else { throw PBFError.blobTooLarge(Int(clamping: raw)) }
                dataSize = Int(raw)
            default: try reader.skip(wire)
            }
        }
        guard let type else { throw PBFError.missingField("BlobHeader.type") }
        guard let dataSize else { throw PBFError.missingField("BlobHeader.datasize") }
        return (type, dataSize)
    }

    /// The uncompressed content of a `Blob`.
    private static func blobContent(_ reader: ProtobufReader) throws(PBFError) -> [UInt8] {
        var reader = reader
        var raw: Range<Int>?
        var zlib: Range<Int>?
        var rawSize: Int?
        var otherCompression: String?
        while let (field, wire) = try reader.readTag() {
            switch (field, wire) {
            case (1, .lengthDelimited): raw = try reader.readLengthDelimited("Blob.raw")
            case (2, .varint):
                let value = Int64(bitPattern: try reader.readVarint())
                guard value >= 0, value <= maxBlobSize else { throw PBFError.blobTooLarge(Int(clamping: value)) }
                rawSize = Int(value)
            case (3, .lengthDelimited): zlib = try reader.readLengthDelimited("Blob.zlib_data")
            case (4, _), (5, _), (6, _), (7, _):
                otherCompression = ["lzma", "bzip2", "lz4", "zstd"][field - 4]
                try reader.skip(wire)
            default: try reader.skip(wire)
            }
        }
        if let raw { return Array(reader.bytes[raw]) }
        if let zlib {
            guard let rawSize else { throw PBFError.missingField("Blob.raw_size") }
            return try Zlib.inflate(reader.bytes[zlib], expectedSize: rawSize)
        }
        if let otherCompression { throw PBFError.unsupportedCompression(otherCompression) }
        throw PBFError.missingField("Blob.raw or Blob.zlib_data")
    }

    private static func checkHeaderBlock(_ bytes: [UInt8]) throws(PBFError) {
        var reader = ProtobufReader(bytes)
        while let (field, wire) = try reader.readTag() {
            if field == 4, wire == .lengthDelimited {
                let feature = try reader.readString("HeaderBlock.required_features")
                guard supportedFeatures.contains(feature) else { throw PBFError.unsupportedFeature(feature) }
            } else {
                try reader.skip(wire)
            }
        }
    }

    // MARK: - PrimitiveBlock

    /// The per-block string table and coordinate scale (`granularity` nanodegrees, plus offsets).
    private struct BlockContext {
        var strings: [String] = []
        var granularity: Int64 = 100
        var latOffset: Int64 = 0
        var lonOffset: Int64 = 0

        func degrees(_ value: Int64, offset: Int64) -> Double {
            // Wrapping arithmetic: hostile values give a nonsense coordinate, never an overflow trap.
            Double(offset &+ granularity &* value) * 1e-9
        }

        func string(_ index: UInt64) throws(PBFError) -> String {
            guard index < UInt64(strings.count) else {
                throw PBFError.invalidField("string index \(index) past a table of \(strings.count)")
            }
            return strings[Int(index)]
        }
    }

    private static func readPrimitiveBlock(_ bytes: [UInt8], into extract: inout OSMExtract) throws(PBFError) {
        // The string table and scale may follow the groups on the wire, so find them first.
        var context = BlockContext()
        var groups: [Range<Int>] = []
        var reader = ProtobufReader(bytes)
        while let (field, wire) = try reader.readTag() {
            switch (field, wire) {
            case (1, .lengthDelimited):
                var table = try reader.readMessage("StringTable")
                while let (tableField, tableWire) = try table.readTag() {
                    if tableField == 1, tableWire == .lengthDelimited {
                        context.strings.append(try table.readString("StringTable.s"))
                    } else {
                        try table.skip(tableWire)
                    }
                }
            case (2, .lengthDelimited): groups.append(try reader.readLengthDelimited("PrimitiveGroup"))
            case (17, .varint):
                let value = Int64(bitPattern: try reader.readVarint())
                guard value > 0 else { throw PBFError.invalidField("granularity \(value)") }
                context.granularity = value
            case (19, .varint): context.latOffset = Int64(bitPattern: try reader.readVarint())
            case (20, .varint): context.lonOffset = Int64(bitPattern: try reader.readVarint())
            default: try reader.skip(wire)
            }
        }
        for group in groups {
            var groupReader = ProtobufReader(bytes, range: group)
            while let (field, wire) = try groupReader.readTag() {
                switch (field, wire) {
                case (1, .lengthDelimited): try readNode(try groupReader.readMessage("Node"), context, &extract)
                case (2, .lengthDelimited):
                    try readDenseNodes(try groupReader.readMessage("DenseNodes"), context, &extract)
                case (3, .lengthDelimited): try readWay(try groupReader.readMessage("Way"), context, &extract)
                case (4, .lengthDelimited):
                    try readRelation(try groupReader.readMessage("Relation"), context, &extract)
                    extract.relationCount += 1
                default: try groupReader.skip(wire)
                }
            }
        }
    }

    private static func readNode(
        _ reader: ProtobufReader, _ context: BlockContext, _ extract: inout OSMExtract
    ) throws(PBFError) {
        var reader = reader
        var id: Int64?
        var lat: Int64?
        var lon: Int64?
        while let (field, wire) = try reader.readTag() {
            switch (field, wire) {
            case (1, .varint): id = try reader.readSignedVarint()
            case (8, .varint): lat = try reader.readSignedVarint()
            case (9, .varint): lon = try reader.readSignedVarint()
            default: try reader.skip(wire)
            }
        }
        guard let id, let lat, let lon else { throw PBFError.missingField("Node.id/lat/lon") }
        extract.nodeIDs.append(id)
        extract.nodeLatitudes.append(context.degrees(lat, offset: context.latOffset))
        extract.nodeLongitudes.append(context.degrees(lon, offset: context.lonOffset))
    }

    private static func readDenseNodes(
        _ reader: ProtobufReader, _ context: BlockContext, _ extract: inout OSMExtract
    ) throws(PBFError) {
        var reader = reader
        var ids: [Int64] = []
        var lats: [Int64] = []
        var lons: [Int64] = []
        while let (field, wire) = try reader.readTag() {
            switch field {
            case 1: try reader.appendSignedVarints(wire, to: &ids)
            case 8: try reader.appendSignedVarints(wire, to: &lats)
            case 9: try reader.appendSignedVarints(wire, to: &lons)
            default: try reader.skip(wire)  // denseinfo (5) and keys_vals (10): no road attribute is on a node.
            }
        }
        guard ids.count == lats.count, ids.count == lons.count else {
            throw PBFError.invalidField("DenseNodes with \(ids.count) ids, \(lats.count) lats, \(lons.count) lons")
        }
        // Each value is the difference from the previous node's.
        var id: Int64 = 0
        var lat: Int64 = 0
        var lon: Int64 = 0
        extract.nodeIDs.reserveCapacity(extract.nodeIDs.count + ids.count)
        for index in ids.indices {
            id = id &+ ids[index]
            lat = lat &+ lats[index]
            lon = lon &+ lons[index]
            extract.nodeIDs.append(id)
            extract.nodeLatitudes.append(context.degrees(lat, offset: context.latOffset))
            extract.nodeLongitudes.append(context.degrees(lon, offset: context.lonOffset))
        }
    }

    private static func readWay(
        _ reader: ProtobufReader, _ context: BlockContext, _ extract: inout OSMExtract
    ) throws(PBFError) {
        var reader = reader
        var id: Int64?
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var deltas: [Int64] = []
        while let (field, wire) = try reader.readTag() {
            switch field {
            case 1:
                guard wire == .varint else { throw PBFError.invalidField("Way.id wire type") }
                id = Int64(bitPattern: try reader.readVarint())
            case 2: try reader.appendVarints(wire, to: &keys)
            case 3: try reader.appendVarints(wire, to: &values)
            case 8: try reader.appendSignedVarints(wire, to: &deltas)
            default: try reader.skip(wire)
            }
        }
        guard let id else { throw PBFError.missingField("Way.id") }
        guard keys.count == values.count else {
            throw PBFError.invalidField("way \(id) has \(keys.count) keys and \(values.count) values")
        }
        var tags: [String: String] = [:]
        for index in keys.indices { tags[try context.string(keys[index])] = try context.string(values[index]) }
        var refs: [Int64] = []
        refs.reserveCapacity(deltas.count)
        var ref: Int64 = 0
        for delta in deltas {
            ref = ref &+ delta
            refs.append(ref)
        }
        extract.ways.append(OSMWay(id: id, nodeRefs: refs, tags: tags))
    }

    private static func readRelation(
        _ reader: ProtobufReader, _ context: BlockContext, _ extract: inout OSMExtract
    ) throws(PBFError) {
        var reader = reader
        var id: Int64?
        var keys: [UInt64] = []
        var values: [UInt64] = []
        var roles: [UInt64] = []
        var memberDeltas: [Int64] = []
        var types: [UInt64] = []
        while let (field, wire) = try reader.readTag() {
            switch field {
            case 1:
                guard wire == .varint else { throw PBFError.invalidField("Relation.id wire type") }
                id = Int64(bitPattern: try reader.readVarint())
            case 2: try reader.appendVarints(wire, to: &keys)
            case 3: try reader.appendVarints(wire, to: &values)
            case 8: try reader.appendVarints(wire, to: &roles)
            case 9: try reader.appendSignedVarints(wire, to: &memberDeltas)
            case 10: try reader.appendVarints(wire, to: &types)
            default: try reader.skip(wire)
            }
        }
        guard let id else { throw PBFError.missingField("Relation.id") }
        guard keys.count == values.count, roles.count == memberDeltas.count, roles.count == types.count else {
            throw PBFError.invalidField("relation \(id) has mismatched keys/values or member arrays")
        }
        var tags: [String: String] = [:]
        for index in keys.indices { tags[try context.string(keys[index])] = try context.string(values[index]) }
        guard tags["type"] == "restriction" else { return }
        // Member ids are delta-coded; types are 0 node, 1 way, 2 relation.
        var from: [Int64] = []
        var via: [Int64] = []
        var to: [Int64] = []
        var viaWays = 0
        var member: Int64 = 0
        for index in roles.indices {
            member = member &+ memberDeltas[index]
            let role = try context.string(roles[index])
            switch (role, types[index]) {
            case ("from", 1): from.append(member)
            case ("to", 1): to.append(member)
            case ("via", 0): via.append(member)
            case ("via", _): viaWays += 1
            default: continue
            }
        }
        guard let restriction = tags["restriction"] ?? tags["restriction:motorcar"], viaWays == 0,
            from.count == 1, via.count == 1, to.count == 1
        else {
            extract.skippedTurnRestrictions += 1
            return
        }
        extract.turnRestrictions.append(
            OSMTurnRestriction(id: id, restriction: restriction, fromWay: from[0], viaNode: via[0], toWay: to[0]))
    }
}
