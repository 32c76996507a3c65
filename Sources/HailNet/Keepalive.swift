/// WebSocket keepalive timing, enforced by the engines' sweep.
struct Keepalive: Sendable {
    /// Quiet time after which a ping is sent; nil for no pings.
    var pingInterval: Duration?
    /// Quiet time after which the connection is dropped; nil to never drop.
    var idleTimeout: Duration?

    init(pingSeconds: Int, idleSeconds: Int) {
        pingInterval = pingSeconds > 0 ? .seconds(pingSeconds) : nil
        idleTimeout = pingSeconds > 0 ? .seconds(max(idleSeconds, pingSeconds + 1)) : nil
    }

    /// How often the sweep runs: often enough to ping and drop on time, at least every 5 s so
    /// stranded writes are retried.
    var tickSeconds: Double {
        guard let ping = pingInterval else { return 5 }
        let seconds = Double(ping.components.seconds) / 2
        return min(5, max(0.25, seconds))
    }
}
