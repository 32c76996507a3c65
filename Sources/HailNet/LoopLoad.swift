/// How many connections each loop of a server holds, and which loop a newly accepted one should live on; pure.
///
/// The kernel hands a connection to the listener of the core that received its SYN (`SO_INCOMING_CPU`). That keeps
/// a connection on the core its peer runs on when peers are spread over the cores, but on loopback the SYN is
/// received on the connecting thread's core, and a client whose threads happen to connect from one core (wrk's
/// eight connections, measured: every one of them on one loop in every run) leaves the other loops idle and caps
/// the server at one core. So a connection stays on the loop that accepted it unless that loop already holds more
/// than the least loaded one by more than a sixteenth of all connections; then it moves there. A few connections
/// end up even; many keep their locality, and a skew past a sixteenth is evened out.
struct LoopLoad: Sendable, Equatable {
    /// Open connections per loop, in loop order.
    private(set) var counts: [Int]

    /// No connections on `loops` loops.
    init(loops: Int) { counts = Array(repeating: 0, count: max(1, loops)) }

    /// The loop a connection accepted on `loop` is to live on, counted there.
    mutating func place(acceptedOn loop: Int) -> Int {
        let total = counts.reduce(0, +)
        var least = loop
        for index in counts.indices where counts[index] < counts[least] { least = index }
        let target = counts[loop] > counts[least] + total / 16 ? least : loop
        counts[target] += 1
        return target
    }

    /// A connection counted on `loop` has gone (closed, or never adopted).
    mutating func release(on loop: Int) {
        counts[loop] = max(0, counts[loop] - 1)
    }
}
