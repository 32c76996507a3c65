import HailCore

extension RoadGraph {
    /// The driving graph of an OSM extract: every drivable way (see `RoadTags`) and only the nodes they use.
    ///
    /// Nodes are numbered densely in the order the drivable ways first reference them, so the same file
    /// always gives the same numbering.
    public init(extract: OSMExtract) {
        var roadWays: [(way: OSMWay, attributes: RoadAttributes)] = []
        var denseIndex: [Int64: Int32] = [:]
        var usedIDs: [Int64] = []
        for way in extract.ways {
            guard let attributes = RoadTags.attributes(for: way.tags) else { continue }
            roadWays.append((way, attributes))
            for ref in way.nodeRefs where denseIndex[ref] == nil {
                denseIndex[ref] = Int32(usedIDs.count)
                usedIDs.append(ref)
            }
        }
        // Fill the coordinates of the used nodes in one pass over all nodes; unknown refs stay missing.
        var latitudes = [Double](repeating: .nan, count: usedIDs.count)
        var longitudes = [Double](repeating: .nan, count: usedIDs.count)
        for index in extract.nodeIDs.indices {
            guard let dense = denseIndex[extract.nodeIDs[index]] else { continue }
            latitudes[Int(dense)] = extract.nodeLatitudes[index]
            longitudes[Int(dense)] = extract.nodeLongitudes[index]
        }
        var builder = RoadGraphBuilder()
        var finalIndex = [Int32](repeating: -1, count: usedIDs.count)
        // A node outside -90...90 / -180...180 (only hostile or broken files have one) counts as missing.
        for index in usedIDs.indices
        where Coordinate(lat: latitudes[index], lng: longitudes[index]).validationProblem == nil {
            finalIndex[index] = builder.addNode(
                .init(lat: latitudes[index], lng: longitudes[index]), id: usedIDs[index])
        }
        var roadOfWay: [Int64: Int32] = [:]
        for (way, attributes) in roadWays {
            let nodes = way.nodeRefs.map { finalIndex[Int(denseIndex[$0]!)] }
            if let road = builder.addRoad(nodes: nodes, attributes: attributes, id: way.id) { roadOfWay[way.id] = road }
        }
        // Restrictions on ways or nodes outside the driving graph (footways, clipped parts) cannot apply.
        for restriction in extract.turnRestrictions {
            guard let kind = TurnRestriction.kind(osmValue: restriction.restriction),
                let from = roadOfWay[restriction.fromWay], let to = roadOfWay[restriction.toWay],
                let dense = denseIndex[restriction.viaNode], finalIndex[Int(dense)] >= 0
            else { continue }
            builder.addTurnRestriction(
                TurnRestriction(kind: kind, fromRoad: from, via: finalIndex[Int(dense)], toRoad: to))
        }
        self = builder.build()
    }
}
