import Foundation
import HailAppSeams
import HailClient
import HailNet
import HailThreads

/// HTTP/1.1 for `HTTPTransport` on HailNet's client sockets (`ClientStream`: TCP, TLS over OpenSSL for https,
/// name resolution and the connect inside one deadline): what the `hail` command's rider and driver apps send
/// REST with on Linux.
///
/// URLSession on Linux (FoundationNetworking) keeps a core busy for as long as a request waits for its answer, so
/// a few dozen apps waiting on a paused backend stalled a whole machine. Here each exchange runs on a thread of a
/// small pool that sleeps in `poll` until the answer's bytes come or the call's deadline passes, and costs nothing
/// while it waits. Connections are kept alive and reused, a few per origin; an answer may be framed by
/// `Content-Length`, by chunks or by the connection's close. A request that finds its kept-alive connection just
/// closed by the server (nothing of an answer read) is sent once more on a fresh connection when that is safe: an
/// idempotent method, or an `Idempotency-Key`.
///
/// Failures are `CallError.noAnswer` (refused, unreachable, reset, closed mid-answer, no answer by the deadline)
/// or `CallError.unreadable` (bytes that are not an HTTP answer), each naming the call.
public final class NetHTTPExchange: HTTPExchange {
    private let threads: ThreadPool<Void>
    private let connections: HTTPConnectionPool
    private let tls: TLSClientSettings

    /// A client of `threads` threads (as many requests at once; more wait their turn, inside their deadline),
    /// keeping up to `idlePerOrigin` connections alive per server; `trust` is whom an https server's certificate
    /// must lead to.
    public init(threads: Int = 6, idlePerOrigin: Int = 4, trust: WebSocketTrust = .system) {
        self.threads = ThreadPool(
            resources: Array(repeating: (), count: max(1, threads)), name: "hail-http", capacity: 256,
            closedError: CallError.noAnswer("the HTTP client is closed"), release: { _ in })
        connections = HTTPConnectionPool(perOrigin: idlePerOrigin, idleLimit: .seconds(15))
        switch trust {
        case .system: tls = TLSClientSettings()
        case .caFile(let path): tls = TLSClientSettings(caFile: path)
        }
    }

    deinit {
        threads.close()
        connections.closeAll()
    }

    /// Sends `call` on a kept-alive or new connection and reads the whole answer within `call.timeout`.
    public func exchange(_ call: HTTPCall) async throws(CallError) -> HTTPReply {
        let plan = try HTTPRequestPlan(call)
        let timeout = Duration.milliseconds(Int64((max(call.timeout, 0.001) * 1000).rounded(.up)))
        // The deadline runs from now: a request that waited for a free thread has that much less.
        let deadline = ContinuousClock.now + timeout
        let outcome: Result<HTTPResponseParts, HTTPExchangeFailure>
        do {
            outcome = try await threads.run { [connections, tls] _ in
                Result { () throws(HTTPExchangeFailure) in
                    try Self.perform(plan, connections: connections, tls: tls, timeout: timeout, until: deadline)
                }
            }
        } catch {
            throw error.asCallError
        }
        switch outcome {
        case .success(let parts):
            return HTTPReply(status: parts.status, headers: parts.headers, body: Data(parts.body))
        case .failure(.timedOut):
            throw .noAnswer("\(call.label): no answer from \(plan.origin.description) within \(timeout.secondsText) s")
        case .failure(.connect(let reason)), .failure(.lost(let reason, _)):
            throw .noAnswer("\(call.label): \(reason)")
        case .failure(.malformed(let reason)):
            throw .unreadable("\(call.label): \(reason)")
        }
    }

    /// One exchange, blocking: on an idle connection when one is quiet, and on a fresh one when there is none or
    /// the idle one turns out to have been closed under the request (and the request may be sent again).
    private static func perform(
        _ plan: HTTPRequestPlan, connections: HTTPConnectionPool, tls: TLSClientSettings, timeout: Duration,
        until deadline: ContinuousClock.Instant
    ) throws(HTTPExchangeFailure) -> HTTPResponseParts {
        if let connection = connections.checkOut(plan.origin) {
            do {
                return try finish(plan, on: connection, connections: connections, until: deadline)
            } catch {
                guard case .lost(_, answerStarted: false) = error, plan.replayable else { throw error }
            }
        }
        let connection = try HTTPConnection.open(plan.origin, tls: tls, timeout: timeout, until: deadline)
        return try finish(plan, on: connection, connections: connections, until: deadline)
    }

    private static func finish(
        _ plan: HTTPRequestPlan, on connection: HTTPConnection, connections: HTTPConnectionPool,
        until deadline: ContinuousClock.Instant
    ) throws(HTTPExchangeFailure) -> HTTPResponseParts {
        do {
            let parts = try connection.exchange(plan, until: deadline)
            if parts.reusable { connections.checkIn(connection) } else { connection.close() }
            return parts
        } catch {
            connection.close()
            throw error
        }
    }
}
