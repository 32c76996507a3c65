import Foundation

/// Finds the project's real test data (`../shared/data` beside the repository), which is never copied in.
public enum SharedData {
    /// The data folder: `$HAIL_SHARED_DATA` when set, else `../shared/data` next to the package root.
    public static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["HAIL_SHARED_DATA"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        // #filePath is Sources/HailTestSupport/SharedData.swift; three levels up is the package root.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }

    /// The URL of `relativePath` inside the data folder, or nil when that file is not on this machine.
    public static func file(_ relativePath: String) -> URL? {
        let url = directory.appendingPathComponent(relativePath)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// True when the data folder is present (tests that need it are skipped with a message otherwise).
    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: directory.path) }
}
