import Foundation
import HailNet
import HailProtocol

/// The node as a drain's target: readiness, HailNet's listeners and streams, and the work it acknowledged.
extension BackendServer: DrainTarget {
    /// `/readyz` answers 503 `draining` from now on.
    public func markUnready() { services.readiness.draining = true }

    /// Closes the listeners and returns the WebSockets still open: drivers' streams (positions come from them) and
    /// the rest (they watch), with the trip each driver serves and each watcher watches; from now on the trips'
    /// positions arriving here are noted (`positionsSeen`).
    public func stopAccepting() async -> DrainStreams {
        await net.stopAccepting()
        live.sightings.watch()
        let driverIDs = await live.drivers.driverIDs()
        var streams = DrainStreams()
        for connection in await net.openWebSockets() {
            if connection.request.path == Routes.driverLive.template {
                streams.drivers.append(connection.id)
                if let driverID = driverIDs[ObjectIdentifier(connection)],
                    let trip = await services.fleet.servedTripID(driverID: driverID)
                {
                    streams.servedTrips[connection.id] = trip
                }
            } else {
                streams.watchers.append(connection.id)
                if let trip = Self.watchedTrip(path: connection.request.path) {
                    streams.watchedTrips[connection.id] = trip
                }
            }
        }
        return streams
    }

    /// The trip id of a trip stream's path (`/v1/trips/{id}/live`), nil for any other.
    static func watchedTrip(path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "trips", parts[4] == "live",
            !parts[3].isEmpty
        else { return nil }
        return String(parts[3])
    }

    /// The trips whose positions reached this node's watchers since the last call.
    public func positionsSeen() async -> [String: Date] { live.sightings.take() }

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
