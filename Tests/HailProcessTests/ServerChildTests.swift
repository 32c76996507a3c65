import Foundation
import Testing

@testable import HailProcess

/// The harness every benchmark and test starts `hail server` through, on a stand-in that speaks its lines.
@Suite("A server as a child process")
struct ServerChildTests {
    @Test func theListeningLineGivesThePortAndStandardErrorComesLineByLine() async throws {
        let child = try await ServerChild.start(
            executable: "/bin/sh",
            arguments: [
                "-c",
                "echo 'starting' >&2; echo 'Hail server listening on http://127.0.0.1:4321 (2 loops)'; "
                    + "echo 'flags reloaded' >&2; exec sleep 30",
            ],
            timeout: .seconds(20))
        #expect(child.port == 4321)
        #expect(child.baseURL.absoluteString == "http://127.0.0.1:4321")
        var lines: [String] = []
        for await line in child.errorLines {
            lines.append(line)
            if lines.count == 2 { break }
        }
        #expect(lines == ["starting", "flags reloaded"])
        #expect(child.isRunning)
        child.kill()
        #expect(child.isRunning == false)
        #expect(child.process.termination == .signalled(SIGKILL))
    }

    @Test func aChildThatExitsBeforeListeningSaysWhyWithItsOwnErrorLineAndTheLogKeepsIt() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let error = await #expect(throws: ServerChildError.self) {
            _ = try await ServerChild.start(
                executable: "/bin/sh",
                arguments: [
                    "-c", "echo 'hail server: --db: cannot open /nope/x.db' >&2; echo 'usage: ...' >&2; exit 1",
                ],
                errorLog: log, timeout: .seconds(20))
        }
        #expect(
            error?.description
                == "`sh -c` exited with status 1 before it was listening: hail server: --db: cannot open /nope/x.db")
        #expect(
            try String(contentsOf: log, encoding: .utf8) == "hail server: --db: cannot open /nope/x.db\nusage: ...\n")
    }

    @Test func aFreeLoopbackPortIsOneAChildToldToListenThereCanTake() async throws {
        let port = try ServerChild.freeLoopbackPort()
        #expect(port > 0)
        // The child binds exactly the port it is given (no fallback to any free one) and reports what it got.
        let child = try await ServerChild.start(
            executable: "/usr/bin/python3",
            arguments: [
                "-c",
                """
                import socket, sys, time
                s = socket.socket()
                s.bind(("127.0.0.1", int(sys.argv[1])))
                s.listen()
                print("listening on http://127.0.0.1:%d" % s.getsockname()[1], flush=True)
                time.sleep(30)
                """,
                "\(port)",
            ],
            timeout: .seconds(20))
        defer { child.kill() }
        #expect(child.port == port)
    }
}
