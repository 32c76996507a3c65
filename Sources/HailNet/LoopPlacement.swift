/// Which loop of a server each accepted connection lives on, and how many each holds; pure.
///
/// A server has one listening socket; what it accepts goes to the loop on the core its packets arrive on when that
/// keeps the loops within `localitySlack` of even, otherwise to the loop holding the fewest connections now, ties
/// taken in turn (round robin from the loop after the last one chosen). So connections opened together spread
/// within one of even (a benchmark's eight kept-alive connections, four and four; a reconnect storm's thousands of
/// streams), and a loop left light by closes takes the next ones until it is level again. The kernel's spread over
/// one listener per loop (SO_REUSEPORT) hashed each connection instead: a client's few connections often all landed
/// on one loop, and the server had one core's worth (docs/BENCHMARKS.md, "Connections placed by the node").
struct LoopPlacement: Sendable, Equatable {
    /// Connections placed on each loop and not released yet, in loop order.
    private(set) var counts: [Int]
    /// Where the search for the least loaded loop starts, so ties go round robin.
    private var next = 0

    /// No connections on `loops` loops (at least one).
    init(loops: Int) { counts = Array(repeating: 0, count: max(1, loops)) }

    /// Connections a preferred loop may hold beyond the fewest and still take the next one (`place(preferring:)`).
    static let localitySlack = 2

    /// The loop a newly accepted connection is to live on, counted there: `preferred` (the loop on the core that
    /// handles the connection's packets) while it holds fewer than the fewest plus `localitySlack`, otherwise the
    /// loop holding fewest. A client on this machine whose threads sit on different cores then has each thread's
    /// connections read on its own core (no wake-up crosses cores per request: 0.6x nginx on /healthz against 0.3x
    /// with the same connections crossed), and one whose threads all connected from one core still spreads.
    mutating func place(preferring preferred: Int? = nil) -> Int {
        if let preferred, counts.indices.contains(preferred),
            counts[preferred] < (counts.min() ?? 0) + Self.localitySlack
        {
            counts[preferred] += 1
            return preferred
        }
        var chosen = next
        for step in 1..<counts.count {
            let index = (next + step) % counts.count
            if counts[index] < counts[chosen] { chosen = index }
        }
        counts[chosen] += 1
        next = (chosen + 1) % counts.count
        return chosen
    }

    /// A connection counted on `loop` has ended (closed, or never adopted).
    mutating func release(on loop: Int) {
        guard counts.indices.contains(loop) else { return }
        counts[loop] = max(0, counts[loop] - 1)
    }
}
