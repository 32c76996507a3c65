import Foundation

/// The decisions of a WebSocket over a library that reports no handshake, `URLSessionWebSocketTask`'s shape:
/// `resume()` returns at once, and the first sign of the server is its first frame (Hail's `hello`).
///
/// It keeps the contract the Linux transport (HailNet's `WebSocketClient`) is tested on: the stream counts as
/// open only once the server has spoken, so an attempt in a tunnel fails and the caller's backoff grows instead of
/// "connecting" every second; a ping after `pingAfter` of silence and a drop after `idleTimeout`, so a half-open
/// socket does not hang; and a connection that died without a close frame ends with 1006, not the task's 0.
/// Pure: each event takes `now` and returns the one thing the runtime must do.
public struct SocketSessionMachine: Sendable, Hashable {
    /// The times the machine works to.
    public struct Timing: Sendable, Hashable {
        /// Seconds from `resume()` to the server's first frame before the attempt counts as failed.
        public var openTimeout: TimeInterval
        /// Seconds of silence before a ping.
        public var pingAfter: TimeInterval
        /// Seconds of silence after which the connection counts as dead.
        public var idleTimeout: TimeInterval

        /// Creates a timing; the defaults are the Linux client's keepalive (20 s, 60 s) and 10 s to open.
        public init(openTimeout: TimeInterval = 10, pingAfter: TimeInterval = 20, idleTimeout: TimeInterval = 60) {
            self.openTimeout = openTimeout
            self.pingAfter = pingAfter
            self.idleTimeout = idleTimeout
        }
    }

    /// Where the connection is.
    public enum Phase: Sendable, Hashable {
        /// Resumed; the server has not spoken yet.
        case opening
        /// The server has spoken.
        case open
        /// Over, with this close (1006 when it just died).
        case ended(SocketClose)
    }

    /// What the runtime does after an event.
    public enum Action: Sendable, Hashable {
        /// Nothing.
        case none
        /// The server's first frame: the stream is open, `connect` returns (and the frame is handed on).
        case opened
        /// Send a ping.
        case ping
        /// The attempt failed before the server spoke: cancel the task, `connect` throws with this reason.
        case failOpening(reason: String)
        /// The stream ended with this close: finish the frames; cancel the task when `cancelTask` (it is still
        /// running: a timeout or the app's own close).
        case end(SocketClose, cancelTask: Bool)
    }

    /// The code of a connection that ended without a close frame (RFC 6455 §7.1.5).
    public static let abnormalClosure: UInt16 = 1006

    /// Where the connection is.
    public private(set) var phase: Phase = .opening
    private let timing: Timing
    private let resumedAt: Date
    private var lastHeard: Date
    private var pingOutstanding = false

    /// A connection whose task was resumed at `resumedAt`.
    public init(timing: Timing = Timing(), resumedAt: Date) {
        self.timing = timing
        self.resumedAt = resumedAt
        lastHeard = resumedAt
    }

    /// When `tick` next has something to decide; nil once the connection has ended.
    public var nextDeadline: Date? {
        switch phase {
        case .opening: resumedAt.addingTimeInterval(timing.openTimeout)
        case .open:
            lastHeard.addingTimeInterval(
                pingOutstanding ? timing.idleTimeout : min(timing.pingAfter, timing.idleTimeout))
        case .ended: nil
        }
    }

    /// A frame arrived at `now`.
    public mutating func frameReceived(at now: Date) -> Action {
        switch phase {
        case .opening:
            phase = .open
            heard(at: now)
            return .opened
        case .open:
            heard(at: now)
            return .none
        case .ended:
            return .none
        }
    }

    /// The answer to a ping arrived at `now`: the connection is alive (but a pong never opens it: only the server's
    /// own frame does).
    public mutating func pongReceived(at now: Date) -> Action {
        if phase == .open { heard(at: now) }
        return .none
    }

    /// Time passed; `now` is the clock's date.
    public mutating func tick(at now: Date) -> Action {
        switch phase {
        case .opening where now >= resumedAt.addingTimeInterval(timing.openTimeout):
            phase = .ended(SocketClose(code: Self.abnormalClosure, reason: "no answer"))
            return .failOpening(reason: "the server did not answer within \(Self.seconds(timing.openTimeout))")
        case .open where now.timeIntervalSince(lastHeard) >= timing.idleTimeout:
            let close = SocketClose(
                code: Self.abnormalClosure, reason: "nothing heard for \(Self.seconds(timing.idleTimeout))")
            phase = .ended(close)
            return .end(close, cancelTask: true)
        case .open where !pingOutstanding && now.timeIntervalSince(lastHeard) >= timing.pingAfter:
            pingOutstanding = true
            return .ping
        default:
            return .none
        }
    }

    /// Receiving failed with `error`; `closeCode` is the task's (0, "invalid", when no close frame arrived) and
    /// `reason` the peer's.
    public mutating func receiveFailed(closeCode: Int, reason: String, error: String) -> Action {
        switch phase {
        case .opening:
            phase = .ended(SocketClose(code: Self.abnormalClosure, reason: error))
            return .failOpening(reason: error)
        case .open:
            let code = (1000...4999).contains(closeCode) ? UInt16(closeCode) : Self.abnormalClosure
            let close = SocketClose(code: code, reason: reason)
            phase = .ended(close)
            return .end(close, cancelTask: false)
        case .ended:
            return .none
        }
    }

    /// The app closed the stream with `code` and `reason`.
    public mutating func closeRequested(code: UInt16, reason: String) -> Action {
        if case .ended = phase { return .none }
        let close = SocketClose(code: code, reason: reason)
        phase = .ended(close)
        return .end(close, cancelTask: true)
    }

    private mutating func heard(at now: Date) {
        lastHeard = now
        pingOutstanding = false
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
