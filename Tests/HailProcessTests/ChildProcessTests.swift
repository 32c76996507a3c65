import Foundation
import Testing

@testable import HailProcess

@Suite("Children start clean and die with their parent")
struct ChildProcessTests {
    /// Runs `executable` with `arguments` to the end and returns what it printed and how it ended.
    private func output(_ executable: String, _ arguments: [String]) async throws -> (String, ChildProcess.Termination)
    {
        let pipe = Pipe()
        let child = try ChildProcess.start(
            executable, arguments, standardOutput: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return (String(decoding: data, as: UTF8.self), await child.waitForExit())
    }

    @Test("started from a cooperative-pool thread (SIGTERM blocked there), the child blocks and ignores nothing")
    func cleanSignalMask() async throws {
        let (status, ended) = try await output("/bin/cat", ["/proc/self/status"])
        func mask(_ name: String) -> UInt64? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }) else {
                return nil
            }
            return UInt64(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        #expect(mask("SigBlk") == 0)
        // Signals 1-31 (SIGTERM, SIGINT, SIGPIPE...): glibc keeps 32 and 33 for itself and refuses to reset them.
        #expect(mask("SigIgn").map { $0 & 0x7fff_ffff } == 0)
        #expect(ended == .exited(0))
    }

    @Test("the child has only standard input, output and error of this process's descriptors")
    func noInheritedDescriptors() async throws {
        let (listing, ended) = try await output("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(listing == "0\n1\n2\n")
        #expect(ended == .exited(0))
    }

    @Test("the environment given is laid over this process's, and one descriptor can be both output and error")
    func environmentAndSharedOutput() async throws {
        // What the tests that left Foundation's Process rely on: a variable added for the child, the rest inherited,
        // and a program's output and errors interleaved on one pipe.
        let pipe = Pipe()
        let child = try ChildProcess.start(
            "/bin/sh", ["-c", #"echo "$HAIL_CHILD_GIVEN $PATH"; echo problem >&2"#],
            environment: ["HAIL_CHILD_GIVEN": "given"], standardOutput: pipe.fileHandleForWriting.fileDescriptor,
            standardError: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "given \(ProcessInfo.processInfo.environment["PATH"] ?? "")\nproblem\n")
        #expect(await child.waitForExit() == .exited(0))
    }

    @Test("the death signal comes when the thread that forked ends (the spawner thread lives for the process)")
    func deathSignal() async throws {
        let started = await withCheckedContinuation { continuation in
            Thread {
                let result = Result { () throws(ChildProcessError) -> ChildProcess in
                    try ChildProcess.start(
                        "/bin/sleep", ["600"], standardInput: nil, standardOutput: nil, standardError: nil,
                        deathSignal: SIGTERM, onSpawnerThread: false)
                }
                continuation.resume(returning: result)
            }.start()
        }
        let child = try started.get()
        #expect(await child.waitForExit() == .signalled(SIGTERM))
    }

    @Test("stop: SIGTERM reaches a child whatever this process ignores or blocks")
    func stopEndsTheChild() async throws {
        let child = try ChildProcess.start("/bin/sleep", ["600"])
        #expect(child.isRunning)
        #expect(await child.stop() == .signalled(SIGTERM))
        #expect(!child.isRunning)
    }

    @Test("a wait that is cancelled ends at once with nil and leaves the child running; the next one sees its end")
    func cancelledWait() async throws {
        let child = try ChildProcess.start("/bin/sleep", ["600"])
        let waiting = Task { await child.waitForExitUnlessCancelled() }
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(child.isRunning)
        child.send(SIGKILL)
        #expect(await child.waitForExitUnlessCancelled() == .signalled(SIGKILL))
        #expect(await child.waitForExit() == .signalled(SIGKILL))
    }

    @Test("a program that does not exist is an error naming it, not a child")
    func missingProgram() {
        do {
            _ = try ChildProcess.start("/nonexistent/program", [])
            Issue.record("started a program that does not exist")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.description == "cannot start /nonexistent/program: No such file or directory")
        }
    }
}
