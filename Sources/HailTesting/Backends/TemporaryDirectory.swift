import Foundation

/// Directories of a test's own under the system's temporary directory.
public enum TemporaryDirectory {
    /// A new, empty directory whose name starts with `prefix`.
    public static func make(_ prefix: String) throws -> String {
        let path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
