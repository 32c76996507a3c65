/// Why the server (or client) closed a WebSocket: a standard code or an application code in 4000-4999.
///
/// A struct rather than an enum so that an older client still understands a code it has not seen:
/// it falls back on `shouldReconnect`'s rule for unknown codes.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric code sent in the close frame.
    public let rawValue: UInt16

    /// Wraps any close code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: done, such as the trip ended or the app closed the screen.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the server is shutting down or the app is going to the background.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1007: a text frame that is not UTF-8 (sent by the socket layer).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1009: a message over the size limit, all fragments together (sent by the socket layer).
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server hit an unexpected error.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    /// 1013: what servers before 4013 sent for it (`reconnectLater`); the apps take it the same way.
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)
    /// 4001: no token, or a bad or expired one.
    public static let unauthorized = WebSocketCloseCode(rawValue: 4001)
    /// 4003: the token is good but this trip is not theirs, or the role is wrong.
    public static let forbidden = WebSocketCloseCode(rawValue: 4003)
    /// 4004: there is no such trip.
    public static let tripNotFound = WebSocketCloseCode(rawValue: 4004)
    /// 4008: a frame broke the protocol (not JSON, unknown type, invalid field, binary batch unreadable).
    public static let invalidFrame = WebSocketCloseCode(rawValue: 4008)
    /// 4009: the client read too slowly and the server's send buffer overflowed.
    public static let slowConsumer = WebSocketCloseCode(rawValue: 4009)
    /// 4010: a newer connection of the same driver or rider stream replaced this one.
    public static let superseded = WebSocketCloseCode(rawValue: 4010)
    /// 4012: the node is draining (a restart, a scale-in); reconnect now, to another node, after a short jitter
    /// instead of the backoff. IANA's 1012 "Service Restart" says the same, but libwebsockets 4.1.6's client (the
    /// apps' transport on Linux) hands a received 1012 over as 1002 (its check predates the code), so Hail says it
    /// in its own range, which every client passes on as it is.
    public static let moveNow = WebSocketCloseCode(rawValue: 4012)
    /// 4013: the server cannot serve the stream right now (its storage or its trip bus is away); reconnect later,
    /// with the backoff. IANA's 1013 "Try Again Later" says the same, and servers before this one sent it, but
    /// libwebsockets 4.1.6's client hands a received 1013 over as 1002 (as it does 1012), so the apps on Linux never
    /// knew an outage from a broken frame; Hail says it in its own range, as it does 4012.
    public static let reconnectLater = WebSocketCloseCode(rawValue: 4013)
    /// 4029: too many frames or connections.
    public static let rateLimited = WebSocketCloseCode(rawValue: 4029)

    /// Every code this version sends.
    public static let all: [WebSocketCloseCode] = [
        .normal, .goingAway, .invalidPayload, .messageTooBig, .internalError, .tryAgainLater, .unauthorized,
        .forbidden, .tripNotFound, .invalidFrame, .slowConsumer, .superseded, .moveNow, .reconnectLater, .rateLimited,
    ]

    /// The reason text sent beside the code (short: a close frame allows 123 bytes).
    public var reason: String {
        switch rawValue {
        case 1000: return "normal closure"
        case 1001: return "going away"
        case 1007: return "invalid UTF-8"
        case 1009: return "message too big"
        case 1011: return "internal error"
        case 1013: return "try again later"
        case 4001: return "unauthorized"
        case 4003: return "forbidden"
        case 4004: return "trip not found"
        case 4008: return "invalid frame"
        case 4009: return "slow consumer"
        case 4010: return "superseded by a newer connection"
        case 4012: return "draining: reconnect now"
        case 4013: return "try again later"
        case 4029: return "rate limited"
        default: return "closed"
        }
    }

    /// True when reconnecting with backoff may help. Auth and not-found closes need the user or a new
    /// trip first; `superseded` means another connection already took over, so reconnecting would fight it.
    public var shouldReconnect: Bool {
        switch rawValue {
        case 1000, 4001, 4003, 4004, 4010: return false
        default: return true
        }
    }

    /// True when the server asks for a reconnect at once (to another node: this one is draining, 4012), after a short
    /// jitter (`Backoff.moveElsewhere`) rather than the failure backoff; the apps resync as after any reconnect.
    public var reconnectsAtOnce: Bool { rawValue == 4012 }

    /// True when the server's storage or bus is away (4013, or 1013 from an older server): the app reconnects with
    /// its backoff, which such a close never starts over (the server accepts a socket and closes it at once then).
    public var isOutage: Bool { rawValue == 4013 || rawValue == 1013 }

    /// `4004 trip not found`.
    public var description: String { "\(rawValue) \(reason)" }
}
