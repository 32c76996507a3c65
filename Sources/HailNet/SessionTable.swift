/// An engine's sessions by id, kept also in a sweep order so that the periodic keepalive sweep visits them a slice
/// at a time: a loop holding ten thousand streams never stops for one pass over all of them (measured: a whole
/// pass every second held each loop for about 30 ms, the largest latency in `hail bench ingest` at 17,500 drivers).
/// Loop thread only, like the sessions it holds.
struct SessionTable {
    private var byID: [UInt64: WireSession] = [:]
    /// Every session once; a session's `tableSlot` is its index here, so removal is a swap with the last.
    private var order: [WireSession] = []
    /// Where the next slice starts.
    private var cursor = 0

    /// The session with `id`, if tracked.
    subscript(id: UInt64) -> WireSession? { byID[id] }

    /// How many sessions are tracked.
    var count: Int { order.count }

    /// Every session, in no particular order.
    var all: [WireSession] { order }

    /// Tracks `session` (once).
    mutating func insert(_ session: WireSession) {
        guard byID.updateValue(session, forKey: session.id) == nil else { return }
        session.tableSlot = order.count
        order.append(session)
    }

    /// Stops tracking the session with `id`.
    mutating func remove(id: UInt64) {
        guard let session = byID.removeValue(forKey: id) else { return }
        let slot = session.tableSlot
        let last = order.removeLast()
        if slot < order.count {
            order[slot] = last
            last.tableSlot = slot
        }
        session.tableSlot = -1
    }

    /// The next of `slices` equal parts of the sessions, round robin, so that `slices` calls visit each session
    /// about once (a removal in between may move one session past the cursor or before it).
    mutating func nextSlice(of slices: Int) -> ArraySlice<WireSession> {
        guard !order.isEmpty else { return [] }
        if cursor >= order.count { cursor = 0 }
        let size = max(1, (order.count + slices - 1) / max(1, slices))
        let end = min(order.count, cursor + size)
        defer { cursor = end }
        return order[cursor..<end]
    }
}
