import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/hail-storage-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of a database file inside the directory.
    func database(_ name: String = "test.sqlite") -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
