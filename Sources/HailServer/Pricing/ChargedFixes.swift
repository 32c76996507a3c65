import Foundation

/// Which of a trip's stored fixes its fare is charged on: the road actually driven, never a path a phone makes up.
///
/// Live fixes passed the server's filter in order as they came. A backlog (fixes flushed from the phone's buffer,
/// or carried by "ended") is charged only for the fixes newer than every fix the server already held for the trip
/// when it arrived, and not older than the trip's start (the fix where the car stood, stored with the start, else the
/// start on the phone's clock): a back-dated detour slipped in between fixes already accepted, or fixes of the way
/// to the pickup, add nothing. Pure: the stored points in, the charged ones out, in device-time order.
public enum ChargedFixes {
    /// The fixes of `stored` the fare is charged on, sorted by device time.
    public static func select(_ stored: [HistoryPoint], startedAt: Date?) -> [HistoryPoint] {
        let live = stored.filter { !$0.backlog }
        let start = Self.start(stored, startedAt: startedAt)
        // A start that is no live fix (none was stored with it) has where the car stood in the newest backlog fix
        // before it: the one fix of the way to the pickup the phone keeps, flushed or sent with "ended".
        let standing = start.flatMap { start in
            live.contains { $0.t <= start } ? nil : stored.filter { $0.backlog && $0.t < start }.max { $0.t < $1.t }
        }
        let arrivals = Dictionary(grouping: stored, by: \.receivedAt).sorted { $0.key < $1.key }
        var newestHeld: Date?
        var charged: [HistoryPoint] = []
        for (_, points) in arrivals {
            // Fixes that arrived together are judged against what was held before them, not against each other.
            let kept = points.filter { point in
                guard point.backlog else { return true }
                if let start, point.t < start { return point == standing }
                if let newestHeld, point.t <= newestHeld { return false }
                return true
            }
            charged += kept
            if let newest = kept.map(\.t).max() { newestHeld = max(newestHeld ?? newest, newest) }
        }
        return charged.sorted { $0.t < $1.t }
    }

    /// When the trip began on the phone's clock: the fix where the car stood, when the server stored it with the start.
    ///
    /// Without it (the server could not read where the car stood: its phone had no link, or Redis did not answer),
    /// the trip's first part comes as a backlog once the link is back, older than the first live fix, and was charged
    /// nothing (777 m for 1,565 m driven through a 30 s Redis pause). The start is then put on the phone's clock: the
    /// server's start less the smallest lag of the live fixes (the phone's offset plus the quickest arrival, so a
    /// little early), or the first live fix if that is earlier. A trip with no live fix at all (begun and ended with
    /// Redis away: its fixes came with "ended") begins at the start's time.
    static func start(_ stored: [HistoryPoint], startedAt: Date?) -> Date? {
        if let standing = stored.first(where: \.standing) { return standing.t }
        let live = stored.filter { !$0.backlog }
        guard let first = live.min(by: { $0.t < $1.t }) else { return startedAt }
        guard let startedAt, let lag = live.map({ $0.receivedAt.timeIntervalSince($0.t) }).min() else { return first.t }
        return min(first.t, startedAt.addingTimeInterval(-lag))
    }
}
