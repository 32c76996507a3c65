import Foundation
import HailServer
import HailStorage
import Testing

/// Secret and key files are created with O_EXCL and mode 0600 and refused when others may read them; the SQLite
/// database and its WAL and shared memory are 0600.
@Suite struct SecretFileTests {
    static func mode(_ path: String) -> Int {
        Int(
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
        )
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hail-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func theSecretIsCreatedOwnerOnlyAndRefusedOnceOthersMayReadIt() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hail.secret").path
        let (secret, created) = try ServerSecret.loadOrCreate(at: path)
        #expect(created)
        #expect(secret.count == 32)
        #expect(Self.mode(path) == 0o600)
        #expect(try ServerSecret.loadOrCreate(at: path) == (secret, false))
        chmod(path, 0o640)
        #expect(throws: ServerSecret.Problem.self) { try ServerSecret.load(at: path) }
        do {
            _ = try ServerSecret.load(at: path)
        } catch {
            #expect(
                error.description
                    == "the secret file \(path) may be read by group or others (mode 640); it holds a secret: "
                    + "run `chmod 600 \(path)` and start again")
        }
        chmod(path, 0o604)
        #expect(throws: ServerSecret.Problem.self) { try ServerSecret.loadOrCreate(at: path) }
    }

    @Test func aSecretFileIsNeverOverwritten() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("key.pem").path
        try SecretFile.create(at: path, contents: "first\n")
        #expect(Self.mode(path) == 0o600)
        #expect(throws: SecretFile.Problem.self) { try SecretFile.create(at: path, contents: "second\n") }
        #expect(try SecretFile.read(path, what: "the key") == "first\n")
    }

    @Test func theDatabaseAndItsWALAreOwnerOnly() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hail.db").path
        do {
            let stores = try await SQLiteTripStores.open(path: path)
            _ = try await stores.trips.record(id: "none")
            #expect(Self.mode(path) == 0o600)
            #expect(Self.mode(path + "-wal") == 0o600)
            #expect(Self.mode(path + "-shm") == 0o600)
        }
        // A database left readable by an older version is made private when it is opened again.
        chmod(path, 0o644)
        let again = try await SQLiteTripStores.open(path: path)
        _ = try await again.trips.record(id: "none")
        #expect(Self.mode(path) == 0o600)
    }
}
