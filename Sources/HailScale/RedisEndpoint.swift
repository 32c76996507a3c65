import Foundation
import HailNet

/// Where a Redis server is, who Hail is to it, whether the way there is encrypted, and how long Hail waits for it,
/// parsed from `redis://[user:password@]host:port/db?timeout=seconds` or, over TLS, `rediss://...` (see
/// `init(url:)`).
public struct RedisEndpoint: Sendable, Hashable {
    /// Host name or address.
    public var host: String
    /// TCP port.
    public var port: Int
    /// The logical database selected after connecting.
    public var database: Int
    /// The longest a connect or a command waits for Redis (the socket's send and receive timeout, and a caller's
    /// deadline on the command's thread): past it the command fails, its connection is dropped and reopened by
    /// the next command, and the request that needed it answers 503.
    public var timeout: Duration
    /// The `AUTH` sent on every connect; nil: none.
    public var credentials: RedisCredentials?
    /// TLS to the server, its certificate verified; nil: plain TCP.
    public var tls: TLSClientSettings?

    /// The default `timeout`: far above a healthy Redis's answer (well under a millisecond on a LAN) and far
    /// below an app's own 10 s, so a request that meets a silent Redis still answers 503 in time.
    public static let defaultTimeout = Duration.seconds(2)

    /// Creates an endpoint.
    public init(
        host: String = "127.0.0.1", port: Int = 6379, database: Int = 0, timeout: Duration = defaultTimeout,
        credentials: RedisCredentials? = nil, tls: TLSClientSettings? = nil
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.timeout = timeout
        self.credentials = credentials
        self.tls = tls
    }

    /// Parses `redis://[[user]:password@]host[:port][/db][?timeout=seconds]`, or `rediss://` for TLS, whose
    /// query may add `cacert=` (a PEM file of the CAs to trust; the system's store without it), `cert=` and
    /// `key=` (a client certificate and its key, for a server with `tls-auth-clients yes`) and `sni=` (the name the
    /// server's certificate must carry, when it is not the host's). `password_file=` reads the password from a
    /// file instead of the URL (its first line; a file others may read is refused), so it appears in no command
    /// line. The user and password are
    /// percent-decoded; an error never repeats the password.
    public init(url: String) throws {
        let shown = Self.redacted(url)
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "redis" || scheme == "rediss"
        else { throw RedisError.configuration("not a redis:// or rediss:// URL: \(shown)") }
        let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard path.isEmpty || Int(path) != nil else { throw RedisError.configuration("bad database in \(shown)") }
        var timeout = Self.defaultTimeout
        var tls = scheme == "rediss" ? TLSClientSettings() : nil
        var password = components.password
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "timeout":
                guard let seconds = Double(value), seconds >= 0.1, seconds <= 60 else {
                    throw RedisError.configuration("timeout in \(shown) must be seconds from 0.1 to 60")
                }
                timeout = .milliseconds(Int64((seconds * 1000).rounded()))
            case "cacert", "cert", "key", "sni":
                guard tls != nil else {
                    throw RedisError.configuration("\(item.name) in \(shown) needs TLS: write rediss://")
                }
                guard !value.isEmpty else { throw RedisError.configuration("\(item.name) in \(shown) is empty") }
                switch item.name {
                case "cacert": tls?.caFile = value
                case "cert": tls?.certificateFile = value
                case "key": tls?.keyFile = value
                default: tls?.serverName = value
                }
            case "password_file":
                guard password == nil else {
                    throw RedisError.configuration("\(shown) gives a password and a password_file")
                }
                password = try Self.readPassword(value)
            default:
                throw RedisError.configuration(
                    "unknown parameter \(item.name) in \(shown) (known: timeout, cacert, cert, key, sni, password_file)"
                )
            }
        }
        if tls?.keyFile != nil && tls?.certificateFile == nil {
            throw RedisError.configuration("key in \(shown) needs cert too")
        }
        let username = components.user.flatMap { $0.isEmpty ? nil : $0 }
        if username != nil && password == nil {
            throw RedisError.configuration("\(shown) names a user but gives no password (user:password@host)")
        }
        self.init(
            host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: components.port ?? 6379,
            database: Int(path) ?? 0, timeout: timeout,
            credentials: password.map { RedisCredentials(username: username, password: $0) }, tls: tls)
    }

    /// `host:port`, and how Hail speaks to it, for a startup banner: never the password.
    public var summary: String {
        var text = "\(host):\(port)"
        if tls != nil { text += " over TLS" }
        if let credentials { text += " as \(credentials)" }
        return text
    }

    /// `url` with any password replaced by `***`, for error messages.
    static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        let userinfo = rest[..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return url }
        return String(url[..<schemeEnd.upperBound]) + userinfo[..<colon] + ":***" + String(rest[at...])
    }

    private static func readPassword(_ path: String) throws -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let data = FileManager.default.contents(atPath: path)
        else { throw RedisError.configuration("cannot read the password_file \(path)") }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
        guard mode & 0o077 == 0 else {
            throw RedisError.configuration(
                "the password_file \(path) may be read by others (mode \(String(mode, radix: 8))): chmod 600 it")
        }
        let text = String(decoding: data, as: UTF8.self)
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let password = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        guard !password.isEmpty else { throw RedisError.configuration("the password_file \(path) is empty") }
        return password
    }
}
