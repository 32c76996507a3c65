import Foundation
import HailProcess
import HailStorage
import Testing

/// Commits survive SIGKILL: a child process (this test binary, re-run in child mode) commits rows and reports
/// each commit on stdout; the parent kills it mid-stream and checks that every reported row is in the file.
@Suite struct SQLiteDurabilityTests {
    private static let databaseVariable = "HAIL_STORAGE_KILL_CHILD_DATABASE"
    private static let durabilityVariable = "HAIL_STORAGE_KILL_CHILD_DURABILITY"
    private static let schema: [SQLiteMigration] = [
        "CREATE TABLE acked (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)"
    ]
    /// Rows the parent waits to see acknowledged before it kills the child.
    private static let acknowledgedBeforeKill = 300

    #if os(Linux)
        @Test(arguments: ["normal", "full"])
        func everyCommitSurvivesSIGKILL(durability: String) throws {
            let directory = try TemporaryDirectory()
            let path = directory.database()
            let output = Pipe()
            let errors = Pipe()
            let child = try ChildProcess.start(
                try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                ["--testing-library", "swift-testing", "--filter", "actAsKilledChild"],
                environment: [Self.databaseVariable: path, Self.durabilityVariable: durability],
                standardOutput: output.fileHandleForWriting.fileDescriptor,
                standardError: errors.fileHandleForWriting.fileDescriptor)
            try output.fileHandleForWriting.close()
            try errors.fileHandleForWriting.close()

            // Block on the pipe until enough commits are reported; the child keeps committing meanwhile, so the
            // kill lands in the middle of its work.
            var buffer: [UInt8] = []
            var acknowledged = 0
            while acknowledged < Self.acknowledgedBeforeKill {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }  // the child ended on its own
                buffer += chunk
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    if line.hasPrefix("ACK "), let id = Int(line.dropFirst(4)) {
                        #expect(id == acknowledged + 1)
                        acknowledged = id
                    }
                }
            }
            child.send(SIGKILL)
            let ended = child.waitUntilExit()
            let childErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try #require(
                acknowledged >= Self.acknowledgedBeforeKill, "child stopped early; its stderr: \(childErrors)")
            #expect(ended == .signalled(SIGKILL))

            let reopened = try SQLiteConnection(.file(path), migrations: Self.schema)
            let ids = try reopened.query("SELECT id, payload FROM acked ORDER BY id").map { row in
                #expect(try row.value("payload", as: [UInt8].self) == Self.payload(for: row.value("id")))
                return try row.value("id", as: Int.self)
            }
            // Every acknowledged row is there, and nothing else but rows committed after the last report read.
            #expect(ids.count >= acknowledged)
            #expect(ids == Array(1...ids.count))
        }
    #endif

    /// The child's side: does nothing in a normal run; in child mode commits rows until killed.
    @Test func actAsKilledChild() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.databaseVariable] else { return }
        let durability: SQLiteConfiguration.Durability =
            ProcessInfo.processInfo.environment[Self.durabilityVariable] == "normal" ? .normal : .full
        let connection = try SQLiteConnection(
            .file(path), configuration: SQLiteConfiguration(durability: durability), migrations: Self.schema)
        // Bounded so an orphaned child cannot run forever; the parent kills it long before.
        for id in 1...1_000_000 {
            try connection.transaction {
                try connection.run("INSERT INTO acked (id, payload) VALUES (?, ?)", id, Self.payload(for: id))
            }
            // Reported only after COMMIT returned: the acknowledgement the server would send.
            let line = Array("ACK \(id)\n".utf8)
            _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
    }

    private static func payload(for id: Int) -> [UInt8] {
        (0..<64).map { UInt8(truncatingIfNeeded: id &* 31 &+ $0) }
    }
}
