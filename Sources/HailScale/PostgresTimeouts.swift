import Foundation
import HailThreads

/// How long Hail waits for PostgreSQL, and how long PostgreSQL lets a session of Hail's hold anything: the
/// connection parameters added to the operator's URL (unless the URL sets them) and the session settings set
/// after each connect (unless the URL's `options` set them).
///
/// The defaults, and why:
/// - a call's `deadline` of 2 s: a trip change is a few milliseconds on a healthy database, and a request that
///   meets a silent one must still answer 503 well inside an app's own 10 s;
/// - `connect_timeout` 3 s (libpq's smallest is 2): a connect to a host that drops packets fails in time;
/// - keepalives after 10 s idle, every 5 s, 3 lost: a connection whose peer vanished while idle is found within
///   25 s, not the kernel's 2 h 11 min;
/// - `tcp_user_timeout` 10 s: a connection whose sent data stays unacknowledged (a partition) is ended by the
///   kernel, not after 15 retransmissions (~15 min);
/// - `statement_timeout` 3 s: no statement of Hail's takes a tenth of that, and a stuck one releases its locks;
/// - `lock_timeout` 2 s: a trip change never queues behind a lock for longer than its caller waits;
/// - `idle_in_transaction_session_timeout` 5 s: a transaction left open by a node that vanished mid-way (its
///   path cut, its host dead) is ended and its row locks released within seconds, not when TCP gives up.
public struct PostgresTimeouts: Sendable, Hashable {
    /// How long a caller waits for one pool job (a statement, or a transaction) before it answers 503.
    public var deadline: Duration = .seconds(2)
    /// libpq's `connect_timeout`, whole seconds (at least 2).
    public var connect: Int = 3
    /// libpq's `keepalives_idle`: seconds idle before the first probe.
    public var keepaliveIdle = 10
    /// libpq's `keepalives_interval`: seconds between probes.
    public var keepaliveInterval = 5
    /// libpq's `keepalives_count`: probes lost before the connection is dead.
    public var keepaliveCount = 3
    /// libpq's `tcp_user_timeout`.
    public var tcpUserTimeout: Duration = .seconds(10)
    /// The session's `statement_timeout`.
    public var statement: Duration = .seconds(3)
    /// The session's `lock_timeout`.
    public var lock: Duration = .seconds(2)
    /// The session's `idle_in_transaction_session_timeout`.
    public var idleInTransaction: Duration = .seconds(5)

    /// The defaults above.
    public init() {}

    /// `deadline` as given, the rest at their defaults.
    public init(deadline: Duration) { self.deadline = deadline }

    /// How long the connection's thread waits for one statement's answer: the server's own `statement_timeout`
    /// and a second for its error to arrive, so a live server's clean error wins and a silent one costs the
    /// thread at most this.
    var statementWait: Duration { statement + .seconds(1) }

    /// The connection parameters, in the order they are handed to libpq, before the URL's own (which win).
    var connectionParameters: [(String, String)] {
        [
            ("connect_timeout", String(max(2, connect))), ("keepalives", "1"),
            ("keepalives_idle", String(keepaliveIdle)), ("keepalives_interval", String(keepaliveInterval)),
            ("keepalives_count", String(keepaliveCount)),
            ("tcp_user_timeout", String(Self.milliseconds(tcpUserTimeout))),
        ]
    }

    /// The `SET` statements for the session settings that `options` (the URL's libpq `options`) does not name.
    func sessionSettings(besides options: String) -> [String] {
        [
            ("statement_timeout", statement), ("lock_timeout", lock),
            ("idle_in_transaction_session_timeout", idleInTransaction),
        ].compactMap { name, value in
            options.contains(name) ? nil : "SET \(name) = \(Self.milliseconds(value))"
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
