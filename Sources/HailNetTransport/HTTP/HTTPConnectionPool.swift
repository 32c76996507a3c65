import HailThreads

/// Kept-alive connections waiting for their next request, a few per origin.
///
/// A connection is checked out for one exchange and checked back in only when its answer left it reusable. One
/// idle longer than `idleLimit` is closed rather than reused: the server closes its own idle connections (Hail's
/// after 30 s), and a request written into one it is closing is lost.
final class HTTPConnectionPool: Sendable {
    private let idle = Locked([HTTPOrigin: [HTTPConnection]]())
    private let perOrigin: Int
    private let idleLimit: Duration

    /// A pool keeping at most `perOrigin` idle connections to each origin, each for at most `idleLimit`.
    init(perOrigin: Int, idleLimit: Duration) {
        self.perOrigin = perOrigin
        self.idleLimit = idleLimit
    }

    /// The most recently used idle connection to `origin` that is still fresh and quiet, or nil.
    func checkOut(_ origin: HTTPOrigin) -> HTTPConnection? {
        while true {
            let candidate = idle.withLock { idle -> HTTPConnection? in idle[origin]?.popLast() }
            guard let candidate else { return nil }
            if ContinuousClock.now - candidate.idleSince < idleLimit && candidate.isQuiet { return candidate }
            candidate.close()
        }
    }

    /// Keeps `connection` for a later request, or closes it when its origin already has enough idle.
    func checkIn(_ connection: HTTPConnection) {
        connection.idleSince = .now
        let kept = idle.withLock { idle -> Bool in
            var list = idle[connection.origin, default: []]
            guard list.count < perOrigin else { return false }
            list.append(connection)
            idle[connection.origin] = list
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes every idle connection.
    func closeAll() {
        let all = idle.withLock { idle -> [HTTPConnection] in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        for connection in all { connection.close() }
    }
}
