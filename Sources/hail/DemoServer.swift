import Foundation
import HailProtocol
import HailServer
import HailSim
import Synchronization

/// The demo's server, restartable from the console: a restart stops it (every socket closed, as a crash
/// would) and starts a new one on the same port and database, which resumes the trips in flight; the
/// simulated apps reconnect and resync by themselves.
final class DemoServer: Sendable {
    private struct State {
        var server: BackendServer
        var restarting: Task<Void, Never>?
        var stopping = false
    }

    private let options: BackendServer.Options
    private let state: Mutex<State>

    /// The demo's server, `first` started with `options`.
    init(first: BackendServer, options: BackendServer.Options) {
        self.options = options
        state = Mutex(State(server: first))
    }

    /// The server running now.
    var current: BackendServer { state.withLock { $0.server } }

    /// Serves until Ctrl-C or SIGTERM, across restarts.
    func runUntilInterrupted() async {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
        for source in sources {
            source.setEventHandler { [self] in
                let server = state.withLock { state -> BackendServer in
                    state.stopping = true
                    return state.server
                }
                Task { await server.shutdown() }
            }
            source.resume()
        }
        while true {
            do { try await current.run() } catch {
                try? FileHandle.standardError.write(contentsOf: Data("hail demo: \(error)\n".utf8))
            }
            // Stopped by a restart: go on with the new server; by a signal: done.
            let restart = state.withLock { $0.stopping ? nil : $0.restarting }
            guard let restart else { break }
            await restart.value
            if state.withLock({ $0.stopping }) { break }
        }
        for source in sources { source.cancel() }
        say("Hail server stopped.")
    }

    /// Restarts the server a moment after answering (the answer to the press goes out on the old one).
    func restart() -> DemoFaultAnswer {
        let task = Task { [self] in
            try? await Task.sleep(for: .milliseconds(300))
            let old = current
            await old.shutdown()
            var options = self.options
            options.port = old.port
            do {
                let new = try await BackendServer.start(options)
                state.withLock { $0.server = new }
                say("The server restarted on port \(new.port).")
            } catch {
                say("The restarted server could not start: \(error)")
                state.withLock { $0.stopping = true }
            }
        }
        state.withLock { $0.restarting = task }
        return DemoFaultAnswer(done: "the server restarts now, on the same port and database", until: nil)
    }
}

/// What `hail demo` offers its console: the city's rider's-eye views and faults, and a server restart.
struct DemoCommandConsole: DemoControls {
    let city: CityConsole
    let server: DemoServer

    func riderView(tripID: String) async -> DemoRiderView? { await city.riderView(tripID: tripID) }

    func press(_ fault: DemoFault) async throws(APIError) -> DemoFaultAnswer {
        if fault.kind == .restartServer { return server.restart() }
        return try await city.press(fault)
    }
}
