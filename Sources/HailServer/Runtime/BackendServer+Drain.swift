import HailNet
import HailProtocol

/// The node as a drain's target: readiness, HailNet's listeners and streams, and the work it acknowledged.
extension BackendServer: DrainTarget {
    /// `/readyz` answers 503 `draining` from now on.
    public func markUnready() { services.readiness.draining = true }

    /// Closes the listeners and returns the WebSockets still open: drivers' streams (positions come from them) and
    /// the rest (they watch).
    public func stopAccepting() async -> DrainStreams {
        await net.stopAccepting()
        var streams = DrainStreams()
        for connection in await net.openWebSockets() {
            if connection.request.path == Routes.driverLive.template {
                streams.drivers.append(connection.id)
            } else {
                streams.watchers.append(connection.id)
            }
        }
        return streams
    }

    /// Closes these WebSockets with 4012.
    public func closeStreams(_ ids: [UInt64]) async {
        let wanted = Set(ids)
        let code = WebSocketCloseCode.moveNow
        for connection in await net.openWebSockets() where wanted.contains(connection.id) {
            connection.close(code: code.rawValue, reason: code.reason)
        }
    }

    /// Closes every WebSocket still open with 4012.
    public func closeRemainingStreams() async {
        let code = WebSocketCloseCode.moveNow
        for connection in await net.openWebSockets() { connection.close(code: code.rawValue, reason: code.reason) }
    }

    /// WebSockets and HTTP requests still open.
    public func openWork() async -> (streams: Int, requests: Int) {
        let counters = net.metrics.snapshot()
        return (counters.openConnections, counters.httpInFlight)
    }

    /// Waits for the history appends started before (their batches were or will be acknowledged), the pushes
    /// queued, and one reconciler pass (changes published are marked, those owed are published).
    public func flush() async {
        await services.history.appendsBefore()
        await services.push?.idle()
        await services.reconciler.reconcile()
    }
}
