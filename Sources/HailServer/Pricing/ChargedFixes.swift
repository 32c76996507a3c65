import Foundation

/// Which of a trip's stored fixes its fare is charged on: the road actually driven, never a path a phone makes up.
///
/// Live fixes passed the server's filter in order as they came. A backlog (fixes flushed from the phone's buffer,
/// or carried by "ended") is charged only for the fixes newer than every fix the server already held for the trip
/// when it arrived, and not older than the trip's start (its first live fix, where the car stood, else the start's
/// time): a back-dated detour slipped in between fixes already accepted, or fixes of the way to the pickup, add
/// nothing. Pure: the stored points in, the charged ones out, in device-time order.
public enum ChargedFixes {
    /// The fixes of `stored` the fare is charged on, sorted by device time.
    public static func select(_ stored: [HistoryPoint], startedAt: Date?) -> [HistoryPoint] {
        let start = stored.filter { !$0.backlog }.map(\.t).min() ?? startedAt
        let arrivals = Dictionary(grouping: stored, by: \.receivedAt).sorted { $0.key < $1.key }
        var newestHeld: Date?
        var charged: [HistoryPoint] = []
        for (_, points) in arrivals {
            // Fixes that arrived together are judged against what was held before them, not against each other.
            let kept = points.filter { point in
                guard point.backlog else { return true }
                if let start, point.t < start { return false }
                if let newestHeld, point.t <= newestHeld { return false }
                return true
            }
            charged += kept
            if let newest = kept.map(\.t).max() { newestHeld = max(newestHeld ?? newest, newest) }
        }
        return charged.sorted { $0.t < $1.t }
    }
}
