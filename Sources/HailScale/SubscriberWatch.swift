/// Whether a subscriber connection's Redis still answers: after `quiet` with nothing read it sends a `PING`,
/// and a `PING` unanswered for `deadline` means Redis is gone (paused, or the path drops packets without a
/// reset, which no socket error would ever report), so the bus ends its streams within `quiet + deadline`.
///
/// Pure: it takes the time since the connection opened and answers what to do; the reader thread carries it out.
struct SubscriberWatch {
    /// What the reader thread does next.
    enum Action: Equatable {
        /// Send a `PING` now.
        case ping
        /// Nothing to do for this long (the `poll` timeout), unless something arrives.
        case wait(Duration)
        /// Redis did not answer in time: drop the connection.
        case fail
    }

    /// Silence before a `PING`.
    let quiet: Duration
    /// How long a `PING` may go unanswered.
    let deadline: Duration
    private var lastHeard: Duration
    private var pingSent: Duration?

    /// A watch over a connection opened at `now`.
    init(quiet: Duration, deadline: Duration, now: Duration) {
        self.quiet = quiet
        self.deadline = deadline
        lastHeard = now
    }

    /// Something was read from Redis at `now`: it is alive.
    mutating func heard(at now: Duration) {
        lastHeard = now
        pingSent = nil
    }

    /// What to do at `now`.
    mutating func next(at now: Duration) -> Action {
        if let sent = pingSent {
            let due = sent + deadline
            return now >= due ? .fail : .wait(due - now)
        }
        let due = lastHeard + quiet
        guard now >= due else { return .wait(due - now) }
        pingSent = now
        return .ping
    }
}
