import Foundation
import HailProcess

/// A throwaway certificate authority and what it signed, made by `openssl` in a directory of its own: a server
/// certificate for `localhost` only (so a client that connects to `127.0.0.1` and checks the name must refuse it),
/// a client certificate, and a second CA that signed none of them (a client trusting it must refuse the server).
/// Keys are P-256; everything is valid for two days.
public struct TestCertificates: Sendable {
    /// The directory holding every file.
    public let directory: String
    /// The CA that signed the server and client certificates.
    public var caFile: String { directory + "/ca.pem" }
    /// A CA that signed nothing here.
    public var otherCAFile: String { directory + "/other-ca.pem" }
    /// The server's certificate, for `DNS:localhost` only.
    public var serverCertificateFile: String { directory + "/server.pem" }
    /// Its key.
    public var serverKeyFile: String { directory + "/server.key" }
    /// A client certificate (`CN=hail`) signed by the CA.
    public var clientCertificateFile: String { directory + "/client.pem" }
    /// Its key.
    public var clientKeyFile: String { directory + "/client.key" }

    /// Makes the files in a new directory under the system's temporary directory.
    public static func make() async throws -> TestCertificates {
        let directory = try TemporaryDirectory.make("hail-tls")
        let certificates = TestCertificates(directory: directory)
        try await certificates.generate()
        return certificates
    }

    /// Deletes the directory.
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }

    private func generate() async throws {
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await openssl(
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Hail Test CA"])
        try await openssl(
            ["req", "-x509"] + key + [
                "-keyout", "other-ca.key", "-out", "other-ca.pem", "-days", "2", "-subj", "/CN=Other CA",
            ])
        try write(
            "server.ext", "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try write("client.ext", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        for name in ["server", "client"] {
            let subject = name == "server" ? "/CN=localhost" : "/CN=hail"
            try await openssl(["req"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try await openssl([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
            ])
        }
    }

    private func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
    }

    private func openssl(_ arguments: [String]) async throws {
        let child = try ChildProcess.start(
            "/bin/sh", ["-c", "cd \"$0\" && exec /usr/bin/openssl \"$@\"", directory] + arguments)
        let end = await child.waitForExit()
        guard end == .exited(0) else {
            throw HarnessError(
                description: "openssl \(arguments.prefix(2).joined(separator: " ")) ended \(end) in \(directory)")
        }
    }
}
