/// Which drivers a reconciler pass compares with the trip store: at most `limit` a pass, taken in order of id from
/// where the last pass stopped, so every driver the node knows is compared once per cycle of passes and no pass
/// costs more than `limit` reads however many drivers there are. Pure: the reconciler hands it the ids it knows.
public struct DriverSweep: Sendable, Hashable {
    /// Drivers compared in one pass at most.
    public let limit: Int
    /// The last id the previous pass took; nil to start from the first.
    private var after: String?

    /// A sweep from the first driver, `limit` a pass (at least one).
    public init(limit: Int) { self.limit = max(1, limit) }

    /// The next pass's drivers among `known` (sorted by id), and where the following pass starts: after the last
    /// one taken, or from the first again once the end is reached. A driver added meanwhile is taken when the sweep
    /// reaches their id; one gone is simply not there.
    public mutating func next(of known: [String]) -> [String] {
        let start = after.map { cursor in known.partitionPoint { $0 > cursor } } ?? 0
        let taken = Array(known[start..<min(known.count, start + limit)])
        after = start + taken.count < known.count ? taken.last : nil
        return taken
    }
}

extension Array where Element == String {
    /// The index of the first element for which `belongs` holds, the array being sorted so that it holds for a tail.
    fileprivate func partitionPoint(_ belongs: (String) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
