import Foundation
import HailCore
import HailDriver
import HailProcess
import HailServer
import HailTesting
import HailTime
import Synchronization

/// `hail server` as a child process on one fixed port, killed with SIGKILL and started again as often as
/// the crash loop likes; the clients' base URL stays valid across restarts. Embedded, it keeps one SQLite
/// file; scaled, it is one node on the deployment's PostgreSQL schema and Redis prefix.
final class CrashLoopServer: Sendable {
    let port: Int
    /// What it stores where: `--db FILE`, or `--postgres URL --redis URL` with schema and prefix.
    let storageArguments: [String]
    let secretPath: String
    /// The running child.
    private let running = Mutex<ServerChild?>(nil)
    private let counts = Mutex<(kills: Int, starts: Int)>((0, 0))

    init(storageArguments: [String], secretPath: String) throws {
        self.storageArguments = storageArguments
        self.secretPath = secretPath
        port = try ServerChild.freeLoopbackPort()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How many times the server was SIGKILLed and started.
    var kills: Int { counts.withLock { $0.kills } }
    var starts: Int { counts.withLock { $0.starts } }
    /// True while a started server has not been killed.
    var isRunning: Bool { running.withLock { $0 != nil } }

    /// Starts the server on the fixed port and returns once it says it listens; a start that fails
    /// (the port still held by the killed process's sockets, say) is tried again, up to `attempts` times.
    func start(attempts: Int = 20) async throws {
        for _ in 0..<attempts {
            if try await launchOnce() {
                counts.withLock { $0.starts += 1 }
                return
            }
        }
        throw HarnessError(description: "hail server did not start on port \(port) in \(attempts) attempts")
    }

    private func launchOnce() async throws -> Bool {
        do {
            let child = try await ServerChild.start(
                executable: ServerChild.hailBesideThisExecutable,
                arguments: ["server", "--port", "\(port)", "--secret-file", secretPath, "--quiet"] + storageArguments,
                timeout: .seconds(20))
            running.withLock { $0 = child }
            return true
        } catch {
            // It exited (the port still held by the killed process's sockets, say) or hung; the harness has
            // stopped it, so the next attempt can take the port.
            return false
        }
    }

    /// The running child, for its log lines (nil when none runs).
    var child: ServerChild? { running.withLock { $0 } }

    /// SIGTERM (a drain): the node is no longer counted as running; its process is returned to await its exit.
    func terminate() -> ChildProcess? {
        guard
            let child = running.withLock({ current -> ServerChild? in
                defer { current = nil }
                return current
            })
        else { return nil }
        child.process.send(SIGTERM)
        return child.process
    }

    /// SIGKILL: no chance to flush or close anything. `counted` is false for the kill that ends the run.
    func kill(counted: Bool = true) {
        guard
            let child = running.withLock({ current -> ServerChild? in
                defer { current = nil }
                return current
            })
        else { return }
        child.kill()
        if counted { counts.withLock { $0.kills += 1 } }
    }
}

/// Kills a node and restarts it at seeded random intervals on the phone's own ticking clock until stopped:
/// the one server in embedded mode, each node in turn in scaled mode, so one node at a time is down. It
/// leaves every node running when its restarts succeed.
final class CrashLoopKiller: Sendable {
    private let task: Task<[String], Never>

    init(deployment: CrashLoopDeployment, interval: ClosedRange<Double>, seed: UInt64) {
        let timeline = Timeline.system()
        task = Task.detached {
            var random = SplitMix64(seed: seed)
            var problems: [String] = []
            var round = 0
            while true {
                let next = timeline.now().addingTimeInterval(Double.random(in: interval, using: &random))
                do { try await timeline.sleep(until: next) } catch { break }
                let server = deployment.nodes[round % deployment.nodes.count]
                round += 1
                server.kill()
                // Its own task, so stopping the loop never interrupts a restart half way.
                let restart = Task { () -> String? in
                    do {
                        try await server.start()
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
                if let problem = await restart.value { problems.append(problem) }
            }
            return problems
        }
    }

    /// Stops the loop after any restart in progress; returns the restarts that failed.
    func stop() async -> [String] {
        task.cancel()
        return await task.value
    }
}
