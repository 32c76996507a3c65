import Foundation
import HailProcess
import HailTesting

/// The APNs stand-in (`Tests/APNs/apns_standin.py`, on Debian's python3-h2 and python3-cryptography): an HTTP/2
/// server over TLS on loopback with a throwaway certificate, which records every request and answers per token.
final class APNsStandIn {
    /// One request as the stand-in saw it.
    struct Request: Decodable, Sendable {
        /// The JWT's header.
        struct JWTHeader: Decodable, Sendable, Hashable {
            var alg: String
            var kid: String
        }

        /// The JWT's claims.
        struct JWTClaims: Decodable, Sendable, Hashable {
            var iss: String
            var iat: Int
        }

        /// Which TLS connection carried it, from 1.
        var connection: Int
        /// The protocol ALPN negotiated (`h2`).
        var `protocol`: String?
        /// `:path`.
        var path: String
        /// The device token at the end of the path.
        var token: String
        /// Every header in the order received, pseudo-headers included.
        var headers: [[String]]
        /// The body as text.
        var body: String
        /// True when the JWT's ES256 signature verified against the key's public half.
        var jwtValid: Bool
        /// The JWT's header, when it parsed.
        var jwtHeader: JWTHeader?
        /// The JWT's claims, when they parsed.
        var jwtClaims: JWTClaims?
        /// What the stand-in answered.
        var status: Int

        /// The value of the header `name`.
        func header(_ name: String) -> String? { headers.first { $0.first == name }?.last }
    }

    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("APNs/apns_standin.py").path

    /// True when python3-h2 and python3-cryptography are installed (scripts/setup.sh).
    static var available: Bool {
        FileManager.default.fileExists(atPath: python)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/h2")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/cryptography")
    }

    let process: ChildProcess
    let input = Pipe()
    // Held for the child's lifetime: releasing the pipe closes the read end its readability handler watches.
    private let output: Pipe
    /// A line per request, printed once the request is in the log.
    private let announced = Mailbox<String>()
    let directory: URL
    /// The port it listens on, on 127.0.0.1.
    let port: Int

    /// The APNs key (`.p8`) the server signs with; the stand-in checks signatures against its public half.
    var keyPath: String { directory.appendingPathComponent("AuthKey_TEST.p8").path }
    /// The CA that signed the stand-in's certificate.
    var caPath: String { directory.appendingPathComponent("ca.pem").path }
    /// `127.0.0.1:<port>`.
    var host: String { "127.0.0.1:\(port)" }
    private var logPath: String { directory.appendingPathComponent("requests.jsonl").path }

    /// Starts a stand-in answering each token in `answers` with its statuses and reasons in order, then 200.
    init(answers: [String: [(Int, String?)]] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hail-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = answers.mapValues { $0.map { [$0.0 as Any, ($0.1 as Any?) ?? NSNull()] } }
        let scriptJSON = String(decoding: try JSONSerialization.data(withJSONObject: script), as: UTF8.self)
        let output = Pipe()
        self.output = output
        process = try ChildProcess.start(
            Self.python,
            [
                Self.script, "--dir", directory.path, "--log", directory.appendingPathComponent("requests.jsonl").path,
                "--script", scriptJSON,
            ], standardInput: input.fileHandleForReading.fileDescriptor,
            standardOutput: output.fileHandleForWriting.fileDescriptor)
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        // The first line is `ready <port>`, printed once the certificate, the key and the listener exist.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("ready "), let port = Int(text.dropFirst(6)) else {
            try? input.fileHandleForWriting.close()
            throw StandInError(message: "the APNs stand-in did not start: '\(text)'")
        }
        self.port = port
        let announced = self.announced
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                Task { await announced.finish() }
                return
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                Task { await announced.put(String(line)) }
            }
        }
    }

    /// Returns once `count` more requests have been recorded; throws when they do not come within `seconds`.
    func waitForRequests(_ count: Int, within seconds: Double = 30) async throws {
        for index in 0..<count {
            guard await announced.nextOrNil(within: seconds) != nil else {
                throw StandInError(message: "the APNs stand-in got \(index) of \(count) requests in \(seconds) s")
            }
        }
    }

    /// Every request recorded so far, in arrival order.
    func requests() throws -> [Request] {
        guard let data = FileManager.default.contents(atPath: logPath) else { return [] }
        return try data.split(separator: UInt8(ascii: "\n")).map { try JSONDecoder().decode(Request.self, from: $0) }
    }

    /// Stops the stand-in and deletes its files.
    func stop() {
        // Closing its input stops it: the script exits at the end of its standard input.
        try? input.fileHandleForWriting.close()
        _ = process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    struct StandInError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
