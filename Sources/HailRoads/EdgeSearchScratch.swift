/// The reusable state of the map matcher's bounded edge searches, one per `MapMatcher.match` call.
///
/// A search touches a few hundred edges of a map of tens of thousands; its labels live in arrays over every edge,
/// valid only where stamped with the search's generation, so starting a search costs nothing and no label is hashed.
/// With dictionaries and sets instead, hashing was most of the matcher's time.
struct EdgeSearchScratch {
    /// The shortest length found to each edge's end.
    var length: [Double]
    /// The edge each edge was reached from.
    var parent: [Int32]
    /// How many times the path to each edge turns round.
    var uTurns: [Int32]
    /// The generation whose labels an edge holds.
    var labelled: [UInt32]
    /// The generation in which an edge was settled.
    var settled: [UInt32]
    /// The current search's generation.
    var generation: UInt32 = 0
    /// The search's queue.
    var heap = MinHeap()

    /// Scratch for a graph of `edgeCount` edges.
    init(edgeCount: Int) {
        length = Array(repeating: 0, count: edgeCount)
        parent = Array(repeating: -1, count: edgeCount)
        uTurns = Array(repeating: 0, count: edgeCount)
        labelled = Array(repeating: 0, count: edgeCount)
        settled = Array(repeating: 0, count: edgeCount)
    }

    /// Forgets the last search's labels.
    mutating func begin() {
        generation &+= 1
        if generation == 0 {
            // Wrapped round after four billion searches: clear the stamps so no old one passes for new.
            for index in labelled.indices {
                labelled[index] = 0
                settled[index] = 0
            }
            generation = 1
        }
        heap.removeAll()
    }

    /// The length found to `edge` in this search, infinity when none.
    func lengthTo(_ edge: Int32) -> Double { labelled[Int(edge)] == generation ? length[Int(edge)] : .infinity }

    /// Records a path of `length` to `edge` from `from`, turning round `uTurns` times.
    mutating func label(_ edge: Int32, length: Double, from: Int32, uTurns: Int32) {
        labelled[Int(edge)] = generation
        self.length[Int(edge)] = length
        parent[Int(edge)] = from
        self.uTurns[Int(edge)] = uTurns
    }

    /// Settles `edge`; false when it was settled already.
    mutating func settle(_ edge: Int32) -> Bool {
        guard settled[Int(edge)] != generation else { return false }
        settled[Int(edge)] = generation
        return true
    }
}
