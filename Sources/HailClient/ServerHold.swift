import Foundation

/// The instant before which an app sends the server nothing more, because the server said so (`Retry-After` on
/// a 503 or a 429): one transport's requests then fail at once, without a request on the wire, until it passes.
///
/// A server that cannot answer (a backend paused) tells each request to come back in a few seconds; an app that
/// sent its next request anyway (a position, a status, a retry) would have it wait out the server's deadline too,
/// adding to the load of a server already short of a backend. Pure: the transport gives it the time.
public struct ServerHold: Sendable, Hashable {
    /// The longest one answer can hold the app: a `Retry-After: 3600` must not silence a driver for an hour.
    public static let longest: TimeInterval = 30

    /// Nothing is sent before this instant; nil when nothing is held.
    public private(set) var until: Date?

    /// A hold that holds nothing.
    public init() {}

    /// The server asked, at `now`, for `retryAfter` seconds of quiet: the hold reaches at least that far (capped at
    /// `longest`), never shorter than one already there.
    public mutating func told(retryAfter: TimeInterval, now: Date) {
        guard retryAfter.isFinite, retryAfter > 0 else { return }
        let end = now.addingTimeInterval(min(retryAfter, Self.longest))
        if let until, until >= end { return }
        until = end
    }

    /// The seconds still held at `now`, or nil when a request may go.
    public func remaining(now: Date) -> TimeInterval? {
        guard let until, until > now else { return nil }
        return until.timeIntervalSince(now)
    }
}
