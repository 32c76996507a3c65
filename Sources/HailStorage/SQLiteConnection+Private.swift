import Foundation

extension SQLiteConnection {
    /// Makes the database file readable by its owner only before SQLite opens it: a new one is created empty with
    /// mode 0600 (SQLite gives its `-wal` and `-shm` the database's mode), and an existing one, with its `-wal` and
    /// `-shm`, loses any group or other permission. The trips in it are riders' pickups and drop-offs.
    static func keepPrivate(_ path: String) {
        if createPrivate(path) { return }
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard stat(file, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            _ = chmod(file, status.st_mode & 0o700)
        }
    }
}

/// Creates the empty file `path` with mode 0600; false when it exists or cannot be made (SQLite then says why).
private func createPrivate(_ path: String) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return false }
    close(descriptor)
    return true
}
