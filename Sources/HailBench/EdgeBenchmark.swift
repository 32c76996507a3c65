import Foundation
import HailProcess
import HailServer

/// `hail bench edge`: Hail's HTTP edge as an outsider measures it. `wrk` (Debian), a client nobody here wrote,
/// with kept-alive connections against `hail server` (a child process) on `GET /healthz`, an authenticated
/// `POST /v1/estimates` and `GET /v1/trips/active`, and against nginx answering a fixed 200 on the same machine
/// in the same run, so every figure has its ratio to nginx.
public struct EdgeBenchmark: Sendable {
    /// wrk's threads (`-t`).
    public var threads = 2
    /// wrk's kept-alive connections (`-c`), spread over its threads.
    public var connections = 8
    /// Seconds per target (`-d`).
    public var seconds = 5
    /// The `hail` executable whose `server` is measured: by default this very executable; tests give the one
    /// built beside them.
    public var hailExecutable = ServerChild.thisExecutable

    /// The defaults: `wrk -t 2 -c 8 -d 5s` on each target.
    public init() {}

    /// The estimate asked for: the same trip `hail bench http --route estimates` prices.
    static let estimateBody = #"{"pickup":{"lat":43.7384,"lng":7.4246},"dropoff":{"lat":43.7311,"lng":7.4197}}"#

    /// Starts nginx and `hail server`, runs wrk on each target in turn, stops both.
    public func run() async throws(BenchError) -> EdgeBenchmarkResult {
        guard let wrk = ExternalCommand.find("wrk") else {
            throw BenchError("wrk is needed to measure (Debian: apt-get install wrk; scripts/setup.sh installs it)")
        }
        signal(SIGPIPE, SIG_IGN)
        let machine = BenchMachine.current()
        let wrkVersion =
            await ExternalCommand.run(wrk, ["-v"], includeErrors: true).output
            .split(separator: "\n").first.map { String($0.prefix { $0 != "[" }).trimmingCharacters(in: .whitespaces) }
            ?? "wrk"
        let nginx = try await NginxReference.start()
        let server: ServerProcess
        do {
            // Rate limits off: one rider token sending thousands of requests a second is the load, not an abuser.
            server = try await ServerProcess.start(executable: hailExecutable, extraArguments: ["--no-rate-limits"])
        } catch {
            await nginx.stop()
            throw error
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hail-bench-edge-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            let result = try await measure(
                wrk: wrk, wrkVersion: wrkVersion, nginx: nginx, server: server, scratch: scratch, machine: machine)
            await server.stop()
            await nginx.stop()
            return result
        } catch {
            await server.stop()
            await nginx.stop()
            throw error
        }
    }

    /// One wrk target: what is asked, and how wrk is told to ask it.
    struct Target {
        let name: String
        let request: String
        let url: String
        let arguments: [String]
    }

    private func measure(
        wrk: String, wrkVersion: String, nginx: NginxReference, server: ServerProcess, scratch: URL,
        machine: BenchMachine
    ) async throws(BenchError) -> EdgeBenchmarkResult {
        let secret: [UInt8]
        do {
            secret = try ServerSecret.load(at: server.secretFile)
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot read the server's secret or make a scratch directory: \(error)")
        }
        let tokens = TokenAuthority(authenticator: HMACAuthenticator(secret: secret))
        let now = Int64(Date().timeIntervalSince1970)
        let rider = tokens.mint(AccessToken(role: .rider, sub: "bench-edge-rider", exp: now + 86_400, iat: now))
        let hail = HTTPEndpoint(address: "127.0.0.1", port: server.port, authority: "127.0.0.1:\(server.port)")
        let authorization = ("Authorization", "Bearer \(rider)")
        let script = scratch.appendingPathComponent("estimates.lua")
        let lua = """
            wrk.method = "POST"
            wrk.body = '\(Self.estimateBody)'
            wrk.headers["Content-Type"] = "application/json"
            wrk.headers["Authorization"] = "Bearer \(rider)"

            """
        do {
            try Data(lua.utf8).write(to: script)
        } catch {
            throw BenchError("cannot write wrk's script \(script.path): \(error)")
        }
        let base = "http://127.0.0.1:\(server.port)"
        let targets = [
            Target(name: "nginx", request: "GET / (fixed 200)", url: "http://127.0.0.1:\(nginx.port)/", arguments: []),
            Target(name: "healthz", request: "GET /healthz", url: base + "/healthz", arguments: []),
            Target(
                name: "estimates", request: "POST /v1/estimates (rider token)", url: base + "/v1/estimates",
                arguments: ["-s", script.path]),
            Target(
                name: "activeTrip", request: "GET /v1/trips/active (rider token)", url: base + "/v1/trips/active",
                arguments: ["-H", "Authorization: Bearer \(rider)"]),
        ]
        var rows: [EdgeBenchmarkResult.Row] = []
        for target in targets {
            let answer = await prepare(target.name, hail: hail, nginxPort: nginx.port, authorization: authorization)
            let arguments =
                ["-t", "\(threads)", "-c", "\(connections)", "-d", "\(seconds)s", "--latency"] + target.arguments
                + [target.url]
            let before = target.name == "nginx" ? nil : server.usage()
            let loopsBefore = server.loopCPUSeconds()
            let (status, output) = await ExternalCommand.run(wrk, arguments, includeErrors: true)
            let after = target.name == "nginx" ? nil : server.usage()
            let loopsAfter = server.loopCPUSeconds()
            guard status == 0, let figures = WrkFigures.parse(output) else {
                throw BenchError("wrk on \(target.request) failed (status \(status)): \(output.suffix(400))")
            }
            var serverCPU: Double?
            var loopsCPU: [Double]?
            if let before, let after, figures.seconds > 0 {
                serverCPU = after.cpuPercent(since: before, wallSeconds: figures.seconds).rounded(toPlaces: 1)
                if loopsAfter.count == loopsBefore.count, !loopsAfter.isEmpty {
                    loopsCPU = zip(loopsAfter, loopsBefore).map { ($0 - $1) / figures.seconds * 100 }.map {
                        $0.rounded(toPlaces: 1)
                    }
                }
            }
            rows.append(
                EdgeBenchmarkResult.Row(
                    name: target.name, request: target.request, answer: answer,
                    figures: figures, serverCPUPercent: serverCPU, loopCPUPercent: loopsCPU))
        }
        return EdgeBenchmarkResult(
            settings: self, wrkVersion: wrkVersion, nginxVersion: nginx.version, rows: rows, machine: machine)
    }

    /// Readies a target and returns the status one request of it gets now. For `activeTrip` the rider first asks
    /// for a trip, so the route reads and returns one (200, the trip searching for a driver for 60 s) instead
    /// of answering 204.
    private func prepare(_ name: String, hail: HTTPEndpoint, nginxPort: Int, authorization: (String, String)) async
        -> Int?
    {
        let json = ("Content-Type", "application/json")
        switch name {
        case "nginx":
            let nginx = HTTPEndpoint(address: "127.0.0.1", port: nginxPort, authority: "127.0.0.1:\(nginxPort)")
            return await EdgeProbe.status(of: "GET", "/", on: nginx)
        case "estimates":
            return await EdgeProbe.status(
                of: "POST", "/v1/estimates", on: hail, headers: [authorization, json],
                body: Array(Self.estimateBody.utf8))
        case "activeTrip":
            let trip = Self.estimateBody.dropLast() + #","productID":"economy"}"#
            _ = await EdgeProbe.status(
                of: "POST", "/v1/trips", on: hail,
                headers: [authorization, json, ("Idempotency-Key", UUID().uuidString.lowercased())],
                body: Array(trip.utf8))
            return await EdgeProbe.status(of: "GET", "/v1/trips/active", on: hail, headers: [authorization])
        default:
            return await EdgeProbe.status(of: "GET", "/healthz", on: hail)
        }
    }
}
