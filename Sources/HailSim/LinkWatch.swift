import Foundation
import HailDriver

/// How long one online driver app went without a link to the server, from the model's link sampled once
/// a second: the longest stretch with no link at all (positions only buffer) and the longest without the
/// stream (offers arrive only on it). The server forgets a driver silent for 60 s.
struct LinkWatch: Sendable, Hashable {
    /// The longest finished stretch with no link at all, seconds.
    private(set) var longestDown: TimeInterval = 0
    /// The longest finished stretch without the stream, seconds.
    private(set) var longestWithoutStream: TimeInterval = 0
    private var downSince: Date?
    private var withoutStreamSince: Date?

    /// The app at `now` is `online` with `link`; an offline app is not counted.
    mutating func observe(online: Bool, link: DriverLink, at now: Date) {
        let down = online && link == .down
        let withoutStream = online && link != .stream
        Self.track(down, since: &downSince, longest: &longestDown, now: now)
        Self.track(withoutStream, since: &withoutStreamSince, longest: &longestWithoutStream, now: now)
    }

    /// The longest stretch with no link, counting one still going on at `now`.
    func longestDown(at now: Date) -> TimeInterval {
        max(longestDown, downSince.map { now.timeIntervalSince($0) } ?? 0)
    }

    /// The longest stretch without the stream, counting one still going on at `now`.
    func longestWithoutStream(at now: Date) -> TimeInterval {
        max(longestWithoutStream, withoutStreamSince.map { now.timeIntervalSince($0) } ?? 0)
    }

    private static func track(_ on: Bool, since: inout Date?, longest: inout TimeInterval, now: Date) {
        if on {
            if since == nil { since = now }
        } else if let start = since {
            longest = max(longest, now.timeIntervalSince(start))
            since = nil
        }
    }
}
