import Foundation
import HailProcess

// The `hail` command line: a thin front end over the library modules.

// A parent that started `hail` from a libdispatch or cooperative-pool thread (Foundation's `Process` does)
// passes on a mask with SIGTERM and SIGINT blocked; every thread started from here on inherits this one's.
ChildProcess.unblockSignalsOfThisThread()
let usage = """
    usage: hail <command> [options]

    commands:
      demo         the server and a simulated city on Monaco's roads, with its live map in the browser
      sim          a simulated city headless on a named network scenario, with the measured report
      server       run the backend (HTTP + WebSocket, SQLite storage)
      token        mint an access token for a rider, driver or operator
      keys         make a signing key pair and add its public key to a JWKS file
      ride         a terminal rider app: request a ride between two points and watch it
      drive        a terminal driver app: go online, accept offers, drive the trip
      fleet        many rider and driver apps in one process against a server, each logging its events
      bench        measure this machine: ingest, connections, baseline (Redis), wire, route, client, http
      walkthrough  play one trip through Hail's core on a virtual clock and print the rider's screen

    Run `hail <command> --help` for a command's options.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first
let rest = Array(arguments.dropFirst())
let wantsHelp = rest.contains("--help") || rest.contains("-h")

func fail(_ message: String, usage: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data("hail \(command ?? ""): \(message)\n\n\(usage)\n".utf8))
    exit(64)
}

/// Prints why `error` stopped the command: with the usage when the options were wrong.
func fail(_ error: UsageError, usage: String) -> Never {
    guard error.isUsage else {
        try? FileHandle.standardError.write(contentsOf: Data("hail \(command ?? ""): \(error.message)\n".utf8))
        exit(error.status)
    }
    fail(error.message, usage: usage)
}

switch command {
case "server":
    if wantsHelp {
        print(ServerCommand.usage)
    } else {
        do { try await ServerCommand.run(rest) } catch { fail(error, usage: ServerCommand.usage) }
    }
case "demo":
    if wantsHelp {
        print(DemoCommand.usage)
    } else {
        do { try await DemoCommand.run(rest) } catch { fail(error, usage: DemoCommand.usage) }
    }
case "sim":
    if wantsHelp {
        print(SimCommand.usage)
    } else {
        do { try await SimCommand.run(rest) } catch { fail(error, usage: SimCommand.usage) }
    }
case "token":
    if wantsHelp {
        print(TokenCommand.usage)
    } else {
        do { try TokenCommand.run(rest) } catch { fail(error, usage: TokenCommand.usage) }
    }
case "keys":
    if wantsHelp {
        print(KeysCommand.usage)
    } else {
        do { try KeysCommand.run(rest) } catch { fail(error, usage: KeysCommand.usage) }
    }
case "ride":
    if wantsHelp {
        say(RideCommand.usage)
    } else {
        do { try await RideCommand.run(rest) } catch { fail(error, usage: RideCommand.usage) }
    }
case "drive":
    if wantsHelp {
        say(DriveCommand.usage)
    } else {
        do { try await DriveCommand.run(rest) } catch { fail(error, usage: DriveCommand.usage) }
    }
case "fleet":
    if wantsHelp {
        say(FleetCommand.usage)
    } else {
        do { try await FleetCommand.run(rest) } catch { fail(error, usage: FleetCommand.usage) }
    }
case "bench":
    if wantsHelp {
        say(BenchCommand.usage)
    } else {
        do { try await BenchCommand.run(rest) } catch { fail(error, usage: BenchCommand.usage) }
    }
case "walkthrough":
    if wantsHelp {
        print(CoreWalkthrough.usage)
    } else if let unknown = rest.first {
        fail("unknown option '\(unknown)'", usage: CoreWalkthrough.usage)
    } else {
        CoreWalkthrough().run()
    }
case nil, "help", "--help", "-h":
    print(usage)
case let other?:
    try? FileHandle.standardError.write(contentsOf: Data("hail: unknown command '\(other)'\n\n\(usage)\n".utf8))
    exit(64)
}

/// Writes a line to standard output at once, unbuffered even into a pipe, so a supervisor or a test
/// sees "listening on ..." as it happens. A reader that has gone away costs the line, not the process (the
/// non-throwing `write(_:)` traps on `EPIPE`, and libwebsockets ignores `SIGPIPE`).
func say(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
