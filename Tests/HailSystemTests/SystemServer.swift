import Foundation
import HailCore
import HailProcess
import HailProtocol
import HailServer

/// `hail server` as a child process on a free loopback port, on a SQLite file and a secret in a folder of the test's:
/// the server the whole-system tests' apps talk to, with tokens it accepts.
final class SystemServer: Sendable {
    /// The running server.
    let child: ServerChild
    private let secret: [UInt8]

    /// Starts `hail server` with `arguments` besides its port, database, secret file and `--quiet` (unless `quiet`
    /// is false: then its request log is in `child.errorLines`).
    init(folder: URL, arguments: [String] = [], quiet: Bool = true) async throws {
        let secretPath = folder.appendingPathComponent("hail.secret").path
        child = try await ServerChild.start(
            executable: ServerChild.hailBesideThisExecutable,
            arguments: [
                "server", "--port", "0", "--db", folder.appendingPathComponent("hail.db").path,
                "--secret-file", secretPath,
            ] + (quiet ? ["--quiet"] : []) + arguments, timeout: .seconds(20))
        do {
            secret = try ServerSecret.load(at: secretPath)
        } catch {
            child.kill()
            throw error
        }
    }

    var baseURL: URL { child.baseURL }

    /// A token for `subject` in `role`, good for an hour from now.
    func token(_ role: Role, _ subject: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return TokenAuthority(authenticator: HMACAuthenticator(secret: secret)).mint(
            AccessToken(role: role, sub: subject, exp: now + 3600, iat: now))
    }

    /// Stops the server (SIGTERM, then SIGKILL after a grace).
    func stop() async {
        await child.stop()
    }
}
