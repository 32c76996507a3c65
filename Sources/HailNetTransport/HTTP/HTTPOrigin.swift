import Foundation

/// Where an HTTP request goes: scheme, host and port, the key under which kept-alive connections are shared.
struct HTTPOrigin: Sendable, Hashable {
    /// True for https.
    let secure: Bool
    /// The host as written in the URL, without an IPv6 literal's brackets.
    let host: String
    /// The port, the scheme's default when the URL has none.
    let port: Int

    /// The origin of `url`, or nil when it is not http(s) with a host.
    init?(_ url: URL) {
        let absolute = url.absoluteURL
        guard let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = absolute.host, !host.isEmpty
        else { return nil }
        secure = scheme == "https"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = absolute.port ?? (secure ? 443 : 80)
    }

    /// The `Host` field's value: the port only when it is not the scheme's default.
    var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// `host:port`, for messages.
    var description: String { "\(host):\(port)" }
}
