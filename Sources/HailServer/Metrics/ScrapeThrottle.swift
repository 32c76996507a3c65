import Foundation
import Synchronization

/// Lets the gauges counted at scrape time (`ServerServices.updateScrapeGauges`) be counted at most once every
/// `interval` seconds: a scrape in between gets the last count, a Prometheus scraping every 15 s a fresh one.
final class ScrapeThrottle: Sendable {
    /// Seconds between two counts.
    static let interval: TimeInterval = 5
    private let last = Mutex<Date?>(nil)

    /// True, and noted, when a count is due at `now` (the first always is).
    func due(at now: Date) -> Bool {
        last.withLock { last in
            if let previous = last, now.timeIntervalSince(previous) < Self.interval, now >= previous { return false }
            last = now
            return true
        }
    }
}
