import Foundation

/// Who a connection really comes from, for per-address limits.
public enum ClientAddress {
    /// The client's address: the peer's own, or, when the peer is a trusted proxy, the last address in
    /// `X-Forwarded-For` that is not a trusted proxy (each proxy appends the address it saw; only the
    /// entries our own proxies added can be believed, the ones before them are the client's to invent).
    public static func resolve(peer: String, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        guard trustedProxies.contains(peer), let forwardedFor else { return peer }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !hop.isEmpty && !trustedProxies.contains(hop) {
            return String(hop.prefix(64))
        }
        return peer
    }

    /// True for 127.0.0.0/8, ::1 and IPv4-mapped loopback: this machine itself.
    public static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
