import Foundation
import HailProcess
import HailTesting
import Testing

/// One request made with the `curl` command through the TLS front (a client that is not Hail's), trusting the
/// run's CA: its status line and header fields as they arrived.
struct CurlProbe {
    /// The status line's protocol (`HTTP/2`, `HTTP/1.1`).
    let version: String
    /// The status.
    let status: Int
    /// Header fields, names lowercased.
    let headers: [String: String]

    /// `curl` with `arguments` before the URL, its answer's head written to a file in `folder`.
    static func get(_ url: String, caFile: String, folder: URL, _ arguments: [String] = []) async throws -> CurlProbe {
        let curl = try #require(
            ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "the curl command is needed (Debian: apt-get install curl)")
        let head = folder.appendingPathComponent("curl-\(UUID().uuidString).head")
        let child = try ChildProcess.start(
            curl,
            ["-s", "--max-time", "20", "--cacert", caFile, "-D", head.path, "-o", "/dev/null"] + arguments + [url])
        let ended = await withDeadline(30) { await child.waitForExit() }
        try #require(ended == .exited(0), "curl \(url) ended \(String(describing: ended))")
        let lines = try String(contentsOf: head, encoding: .utf8).split(separator: "\r\n").map(String.init)
        let statusLine = try #require(lines.first).split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return CurlProbe(
            version: String(statusLine[0]), status: Int(statusLine[1]) ?? 0, headers: headers)
    }
}
