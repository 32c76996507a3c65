import Foundation

/// Where a benchmark sends its requests: an IPv4 address and port, and the Host header to send.
struct HTTPEndpoint: Sendable {
    /// The dotted IPv4 address connected to.
    let address: String
    /// TCP port.
    let port: Int
    /// `host:port` as given, for the Host header and URLs.
    let authority: String

    /// True when the server is on this machine's loopback, so 127.0.0.x source addresses reach it.
    var isLoopback: Bool { address.hasPrefix("127.") }

    /// The base of WebSocket URLs on this server.
    var webSocketBase: String { "ws://\(authority)" }

    /// Parses `http://host:port` (no path), resolving `host` to an IPv4 address.
    init(url: String) throws(BenchError) {
        guard url.hasPrefix("http://") else {
            throw BenchError.invalidOption(
                "--server must be an http:// URL such as http://127.0.0.1:8080, not '\(url)'")
        }
        var authority = String(url.dropFirst("http://".count))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.contains("/"), let colon = authority.lastIndex(of: ":"),
            let port = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(port)
        else {
            throw BenchError.invalidOption("--server must be http://HOST:PORT (with a port and no path), not '\(url)'")
        }
        let host = String(authority[..<colon])
        guard let address = Self.resolve(host) else {
            throw BenchError.invalidOption("--server: cannot resolve '\(host)' to an IPv4 address")
        }
        self.init(address: address, port: port, authority: authority)
    }

    /// An endpoint on a known IPv4 address.
    init(address: String, port: Int, authority: String) {
        self.address = address
        self.port = port
        self.authority = authority
    }

    /// The first IPv4 address of `host`, or nil.
    private static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        guard let socketAddress = first.pointee.ai_addr else { return nil }
        var ipv4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
