import Foundation
import HailClient
import HailCore
import HailNetTransport
import HailTime

/// A fleet of real rider and driver app cores in one process, riding ride after ride against one server (the
/// fault suite's balancer), each app writing its event log: what `hail fleet` runs.
@MainActor
public enum Fleet {
    /// Starts the drivers, then the riders; rides for the configured duration (or until the task is cancelled);
    /// stops every app and returns how the rides ended.
    public static func run(_ configuration: FleetConfiguration) async throws(FleetError) -> FleetSummary {
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.logDirectory, withIntermediateDirectories: true)
        } catch {
            throw FleetError("cannot create the log directory \(configuration.logDirectory): \(error)")
        }
        let connector: SocketConnector
        do { connector = SocketConnector(transport: try NetSocketTransport()) } catch {
            throw FleetError("cannot start the WebSocket client: \(error)")
        }
        let timeline = Timeline.system()
        // Three requests at once per app, as a phone has at most (its outbox, its positions, a read): an app never
        // waits for another's answer, and a thread waiting in `poll` costs nothing.
        let apps = configuration.riders + configuration.drivers
        let wiring = FleetWiring(
            connector: connector, exchange: NetHTTPExchange(threads: max(4, 3 * apps), idlePerOrigin: max(4, apps)),
            timeline: timeline)
        var random = SplitMix64(seed: configuration.seed)
        var drivers: [FleetDriver] = []
        var riders: [FleetRider] = []
        do {
            for index in 1...max(1, configuration.drivers) where configuration.drivers > 0 {
                let start = configuration.area.point(using: &random)
                drivers.append(
                    try await FleetDriver(index: index, configuration: configuration, wiring: wiring, start: start))
            }
            for index in 1...max(1, configuration.riders) where configuration.riders > 0 {
                riders.append(try await FleetRider(index: index, configuration: configuration, wiring: wiring))
            }
        } catch {
            throw FleetError("cannot start the apps: \(error)")
        }
        for driver in drivers { await driver.start() }
        // Riders start once the drivers are on their streams (10 s at most), so the first requests find them.
        let ready = timeline.now().addingTimeInterval(10)
        while timeline.now() < ready, !drivers.allSatisfy({ $0.isOnStream }) {
            do { try await timeline.sleep(until: timeline.now().addingTimeInterval(0.2)) } catch { break }
        }
        let finished = FinishedRides()
        let rides = riders.map { rider in
            Task {
                await rider.run()
                finished.count += 1
            }
        }
        let started = timeline.now()
        if let duration = configuration.duration {
            let limit = started.addingTimeInterval(duration)
            // Riders with a ride limit may finish first; then the fleet ends early too.
            while timeline.now() < limit {
                if configuration.ridesPerRider > 0, finished.count == rides.count { break }
                do { try await timeline.sleep(until: min(limit, timeline.now().addingTimeInterval(1))) } catch { break }
            }
        } else {
            for ride in rides { await ride.value }
        }
        for ride in rides { ride.cancel() }
        for ride in rides { await ride.value }
        var summary = FleetSummary(seconds: timeline.now().timeIntervalSince(started))
        for rider in riders {
            for (state, count) in rider.outcomes { summary.rides[state, default: 0] += count }
            await rider.stop()
        }
        for driver in drivers { await driver.stop() }
        await connector.shutdown()
        return summary
    }
}
