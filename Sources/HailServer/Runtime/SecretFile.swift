import Foundation

/// Files that hold secrets (the token secret, signing keys): created with `O_EXCL` and mode 0600 so no other
/// process can have them open or read them, and refused when group or others may read them.
public enum SecretFile {
    /// Why a secret file could not be written or is not private.
    public struct Problem: Error, CustomStringConvertible {
        /// What to fix.
        public let description: String
    }

    /// Creates `path` holding `contents`, readable and writable by its owner only; refuses a path that exists.
    public static func create(at path: String, contents: String) throws(Problem) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it already exists" : String(cString: strerror(errno))
            throw Problem(description: "cannot create \(path): \(reason)")
        }
        defer { close(descriptor) }
        let bytes = Array(contents.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                unlink(path)
                throw Problem(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            unlink(path)
            throw Problem(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Nothing when `path` is private to its owner; otherwise what to run to make it so. A missing file passes
    /// (reading it says so).
    public static func checkPrivate(_ path: String) throws(Problem) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Problem(
                description: "\(path) may be read by group or others (mode \(String(mode, radix: 8))); "
                    + "it holds a secret: run `chmod 600 \(path)` and start again")
        }
    }

    /// The text of the private file at `path`, or what to fix.
    public static func read(_ path: String, what: String) throws(Problem) -> String {
        try checkPrivate(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "cannot read \(what) \(path)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
