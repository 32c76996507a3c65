import Foundation

/// The TLS Hail asks of a PostgreSQL connection whose URL says nothing of it: `sslmode=verify-full` to any server
/// off this machine (encrypted, the certificate's chain checked against `sslrootcert` and its name against the
/// host), libpq's own `prefer` on loopback and Unix sockets, where no one sits between. A URL's `sslmode`, or the
/// `PGSSLMODE` environment variable, always wins: `sslmode=disable` is the explicit way to go without.
///
/// Pure: it reads the URL's keywords and the environment given to it.
enum PostgresTLSDefault {
    /// The parameters to hand libpq before the URL's own, for a URL whose parsed keywords are `keywords`.
    static func parameters(keywords: [String: String], environment: [String: String]) -> [(String, String)] {
        if keywords["sslmode"] != nil || environment["PGSSLMODE"] != nil { return [] }
        return isRemote(keywords: keywords, environment: environment) ? [("sslmode", "verify-full")] : []
    }

    /// The `sslmode` a connection with these keywords uses: the URL's, else `PGSSLMODE`, else Hail's default.
    static func mode(keywords: [String: String], environment: [String: String]) -> String {
        keywords["sslmode"] ?? environment["PGSSLMODE"]
            ?? (isRemote(keywords: keywords, environment: environment) ? "verify-full" : "prefer")
    }

    /// The hosts libpq will try, as named: the URL's `host` and `hostaddr`, else `PGHOST` (none: the local socket).
    static func hosts(keywords: [String: String], environment: [String: String]) -> [String] {
        var named = [keywords["host"], keywords["hostaddr"]].compactMap { $0 }
        if named.isEmpty, let fromEnvironment = environment["PGHOST"] { named = [fromEnvironment] }
        return named.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map(String.init)
    }

    /// True when any of the hosts is off this machine.
    static func isRemote(keywords: [String: String], environment: [String: String]) -> Bool {
        !hosts(keywords: keywords, environment: environment).allSatisfy(isLocal)
    }

    /// True for a Unix socket directory, `localhost`, 127.0.0.0/8 and ::1.
    static func isLocal(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: .whitespaces)
        if host.isEmpty || host.hasPrefix("/") || host.hasPrefix("@") { return true }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}
