import Foundation
import HailNet
import HailProcess
import HailTime

/// `hail bench connections`: N idle drivers on `/v1/drivers/me/live` of a `hail server` child process,
/// opened from this process over several loopback source addresses; measures the time to open them
/// all and the server's resident memory per connection.
public struct ConnectionsBenchmark: Sendable {
    /// Connections asked for.
    public var count = 1_000
    /// Seconds to hold them all open before the last reading (pings keep them alive).
    public var holdSeconds = 5
    /// The `hail` executable whose `server` the run starts as a child: by default this very executable (`hail bench`); tests give
    /// the one built beside them.
    public var hailExecutable = ServerChild.thisExecutable

    /// The defaults: 1,000 streams held 5 s.
    public init() {}

    /// Open files kept free in each process for listeners, the database and the runtime's own.
    static let reserve = 200
    /// Connections per 127.0.0.x source address (well under its ~28,000 ephemeral ports).
    static let connectionsPerSourceAddress = 1_000
    /// WebSocket handshakes in flight at once.
    static let connectConcurrency = 128
    /// Failed connects in a row after which the ramp stops (the limit has been found).
    static let failuresInARowToStop = 200
    /// The design's peak of drivers online, for the projection.
    static let designConnections = 200_000
    /// The target: that peak under 2 GB of server RSS (2,048,000,000 bytes, 10,240 a stream: issue 13).
    static let targetServerRSSBytes = 2_048_000_000
    /// Server RSS one idle driver stream may cost: 8 KiB (issue 38), under issue 13's 10,240, so the 2 GB peak keeps
    /// room for what a stream that is not idle holds.
    static let targetBytesPerConnection = 8_192

    /// Starts the server, ramps to `count` (or as far as the open-file limit allows) and reports.
    public func run() async throws(BenchError) -> ConnectionsBenchmarkResult {
        let machine = BenchMachine.current()
        // One descriptor per connection in each process (the client's end here, the server's in the child).
        let (limit, refusal) = FileDescriptorLimit.raise(toAtLeast: count + Self.reserve)
        let attempt = min(count, max(0, limit - Self.reserve))
        var limitedBy: String?
        if attempt < count {
            limitedBy =
                (refusal ?? "the open-file limit is \(limit)")
                + "; each process (server and load generator) needs one descriptor per connection, so at most "
                + "\(attempt) connections fit"
        }
        let server = try await ServerProcess.start(executable: hailExecutable)
        let target: BenchTarget
        do {
            target = try BenchTarget.remote(url: "http://127.0.0.1:\(server.port)", secretFile: server.tokenFile)
        } catch {
            await server.stop()
            throw BenchError("cannot read the child server's secret: \(error)")
        }
        let client: WebSocketClient
        do {
            // The server pings every connection (and the client's lws answers); the client's own pings are
            // switched off, so a load generator too busy to ping in time cannot drop what it measures.
            var configuration = WebSocketClientConfiguration()
            configuration.pingIntervalSeconds = 0
            client = try WebSocketClient(configuration: configuration)
        } catch {
            await server.stop()
            throw BenchError("cannot start the WebSocket client: \(error)")
        }
        let idle = server.usage()
        let sources = (0..<max(1, (attempt + Self.connectionsPerSourceAddress - 1) / Self.connectionsPerSourceAddress))
            .map { "127.0.0.\(2 + $0 % 250)" }
        let url = target.endpoint.webSocketBase + "/v1/drivers/me/live"
        let clock = ContinuousClock()
        let started = clock.now
        let checkpointEvery = max(1, attempt / 10)
        let ramp = await withTaskGroup(of: IngestBenchmark.Slot.self) { group in
            var state = RampState()
            var next = 0
            /// Starts handshake number `index`.
            func launch(_ index: Int) {
                let token = target.token(role: .driver, subject: "bench-idle-\(index)")
                let source = sources[index / Self.connectionsPerSourceAddress % sources.count]
                group.addTask {
                    do {
                        return IngestBenchmark.Slot(
                            connection: try await client.connect(
                                to: url, headers: [("Authorization", "Bearer \(token)")], localAddress: source))
                    } catch {
                        return IngestBenchmark.Slot(failure: "\(error)")
                    }
                }
            }
            while next < min(Self.connectConcurrency, attempt) {
                launch(next)
                next += 1
            }
            for await slot in group {
                if let connection = slot.connection {
                    state.open.append(connection)
                    state.failuresInARow = 0
                    if state.open.count % checkpointEvery == 0 {
                        state.checkpoints.append(
                            ConnectionsBenchmarkResult.Checkpoint(
                                connections: state.open.count,
                                seconds: (clock.now - started).timeInterval.rounded(toPlaces: 3),
                                serverRssBytes: server.usage()?.residentBytes ?? 0))
                    }
                } else {
                    state.failures += 1
                    state.failuresInARow += 1
                    if state.firstFailure == nil { state.firstFailure = slot.failure ?? "unknown" }
                }
                if state.failuresInARow >= Self.failuresInARowToStop {
                    state.stoppedEarly = true
                    continue
                }
                if next < attempt {
                    launch(next)
                    next += 1
                }
            }
            return state
        }
        let connectSeconds = (clock.now - started).timeInterval
        try? await Task.sleep(for: .seconds(holdSeconds))
        let held = server.usage()
        let stillOpen = ramp.open.filter { $0.closeInfo == nil }.count
        var closes: [String: Int] = [:]
        for info in ramp.open.compactMap(\.closeInfo) {
            closes["\(info.code) \(info.reason)\(info.byPeer ? "" : " (by the client)")", default: 0] += 1
        }
        let clientUsage = ProcessUsage.current()
        let serverAlive = server.isRunning
        await client.shutdown()
        await server.stop()
        if ramp.stoppedEarly, limitedBy == nil {
            limitedBy =
                "\(Self.failuresInARowToStop) connects failed in a row after \(ramp.open.count) were open: "
                + (ramp.firstFailure ?? "unknown")
        }
        return ConnectionsBenchmarkResult(
            requested: count, attempted: attempt, connected: ramp.open.count, stillOpen: stillOpen, closes: closes,
            failures: ramp.failures, firstFailure: ramp.firstFailure, sourceAddresses: sources.count,
            connectSeconds: connectSeconds, holdSeconds: holdSeconds, idleServer: idle, heldServer: held,
            serverAlive: serverAlive, client: clientUsage, checkpoints: ramp.checkpoints, openFileLimit: limit,
            limitedBy: limitedBy, machine: machine)
    }

    /// The books of the ramp.
    private struct RampState {
        var open: [WebSocketConnection] = []
        var failures = 0
        var failuresInARow = 0
        var firstFailure: String?
        var stoppedEarly = false
        var checkpoints: [ConnectionsBenchmarkResult.Checkpoint] = []
    }
}
