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

    /// How often the sweep visits every connection: often enough to ping and drop on time, and at least every second,
    /// because the sweep also re-arms writes that lost their writable callback. Under load
    /// (`hail bench ingest` with 5,000 drivers) a few acks waited for the sweep, so its period bounds
    /// that delay; one second keeps it well inside the 5 s freshness budget.
    var sweepSeconds: Double {
        guard let ping = pingInterval else { return 1 }
        let seconds = Double(ping.components.seconds) / 2
        return min(1, max(0.25, seconds))
    }

    /// Slices of the sessions one sweep is split into: the engines' tick runs this many times per sweep period and
    /// visits one slice each time, so no tick holds the loop for long.
    static let sweepSlices = 20

    /// How often the engines' tick runs: one slice of the sweep per tick.
    var tickSeconds: Double { sweepSeconds / Double(Self.sweepSlices) }
}
