import HailNet
import HailProtocol

/// The node as a drain's target: readiness, HailNet's listeners and streams, and the work it acknowledged.
extension BackendServer: DrainTarget {
    /// `/readyz` answers 503 `draining` from now on.
    public func markUnready() { services.readiness.draining = true }

    /// Closes the listeners and returns the ids of the WebSockets still open.
    public func stopAccepting() async -> [UInt64] {
        await net.stopAccepting()
        return await net.openWebSockets().map(\.id)
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
