import Foundation
import Synchronization

/// One app's event log: JSON lines appended to a file, each written with one `write` as it happens, so a
/// fleet killed at any instant leaves every line it reported whole (the fault suite stops it with SIGTERM).
public final class FleetLog: Sendable {
    /// The file's path.
    public let path: String
    private let handle: Mutex<FileHandle>

    /// Opens the log at `path`, creating it, or appending to it when an earlier run of the same app wrote it (a
    /// fleet restarted on its directory resumes its apps, and their logs go on).
    public init(path: String) throws(FleetError) {
        self.path = path
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw FleetError("cannot create the event log \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path), (try? handle.seekToEnd()) != nil else {
            throw FleetError("cannot write the event log \(path)")
        }
        self.handle = Mutex(handle)
    }

    /// Appends `event` as one line; a full disk costs the line, never the app.
    public func write(_ event: FleetEvent) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(event) else { return }
        line.append(UInt8(ascii: "\n"))
        handle.withLock { try? $0.write(contentsOf: line) }
    }

    /// Closes the file.
    public func close() { handle.withLock { try? $0.close() } }
}
