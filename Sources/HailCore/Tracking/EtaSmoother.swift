import Foundation

/// Turns the server's ETA into the minutes the rider sees, without flicker.
///
/// The smoother keeps a promise: the arrival time (server clock) behind the minutes on screen. The minutes are
/// the time left to it, rounded up (a promise of "4 min" is never early), 0 when it has come; so they count
/// down by themselves, a minute a minute, and a true countdown (4, 3, 2 min) is never a change of mind. A
/// new server estimate moves the promise only when the minutes it gives have disagreed with the minutes of the
/// promise, in the same direction (all later, or all sooner), on every update for at least `hold` seconds; then
/// the newest estimate becomes the promise. So 4 -> 6 -> 4 min never reaches the screen, while a steady change
/// shows within `hold`. Once the promise has counted down to 0 ("now") it stays there while the estimate is
/// under a minute: a car a few seconds late is arriving, not "1 min" away again.
///
/// While the pin is locating (or the server sends no ETA) no minutes are shown, and the promise is kept: when
/// the minutes come back, an estimate within a minute of the promise's is held against it as any other
/// disagreement, so a dead zone, a resync or a relaunched app (which restores the promise, `restore(_:)`) does
/// not turn 4 min into 5 and back; an estimate further off becomes the promise at once, since the old one is no
/// longer worth keeping.
public struct EtaSmoother: Sendable, Hashable {
    /// How long a disagreement must last before the promise moves.
    public let hold: TimeInterval
    /// The minutes on screen, or nil when none may be shown.
    public private(set) var shownMinutes: Int?
    /// The arrival behind the minutes (server time), kept through a gap; nil before the first estimate.
    public private(set) var promise: Date?
    private var disagreement: Disagreement?

    private struct Disagreement: Sendable, Hashable {
        var since: Date
        var later: Bool
    }

    /// Creates a smoother; `hold` defaults to 8 s, two to four driver updates.
    public init(hold: TimeInterval = 8) { self.hold = hold }

    /// The minutes shown for a server ETA of `seconds`: rounded up, never negative.
    public static func minutes(forSeconds seconds: Int) -> Int { max(0, (seconds + 59) / 60) }

    /// The minutes shown at `now` for an arrival at `arrival`: the time left, rounded up, never negative.
    public static func minutes(until arrival: Date, from now: Date) -> Int {
        let seconds = arrival.timeIntervalSince(now)
        return seconds <= 0 ? 0 : Int((seconds / 60).rounded(.up))
    }

    /// Starts from the promise an earlier instance of the app kept for the same leg of the trip (a relaunch):
    /// its first estimate is held against it as after any gap.
    public mutating func restore(_ promise: Date) {
        guard self.promise == nil else { return }
        self.promise = promise
    }

    /// Takes the server's ETA of `etaSeconds` as of `now` (nil when it sent none) and the pin's freshness;
    /// returns what to show.
    @discardableResult
    public mutating func update(etaSeconds: Int?, pin: PinFreshness.Level, at now: Date) -> Int? {
        update(arrival: etaSeconds.map { now.addingTimeInterval(TimeInterval($0)) }, pin: pin, at: now)
    }

    /// Takes the server's estimate of the arrival (server time; nil when it sent none) and the pin's freshness
    /// at `now`; returns what to show.
    @discardableResult
    public mutating func update(arrival: Date?, pin: PinFreshness.Level, at now: Date) -> Int? {
        guard pin != .locating, let arrival else {
            shownMinutes = nil
            disagreement = nil
            return nil
        }
        guard let promise else {
            adopt(arrival, at: now)
            return shownMinutes
        }
        let promised = Self.minutes(until: promise, from: now)
        let candidate = Self.minutes(until: arrival, from: now)
        if shownMinutes == nil, abs(candidate - promised) > 1 {
            // Back after a gap with an estimate far from the promise: the promise is stale.
            adopt(arrival, at: now)
            return shownMinutes
        }
        // At 0 ("now") the car is arriving: an estimate still under a minute is a car a few seconds late, and
        // the screen keeps saying so rather than going back to "1 min".
        if candidate == promised || (promised == 0 && candidate == 1) {
            disagreement = nil
        } else {
            let later = candidate > promised
            if let current = disagreement, current.later == later {
                if now.timeIntervalSince(current.since) >= hold {
                    adopt(arrival, at: now)
                    return shownMinutes
                }
            } else {
                disagreement = Disagreement(since: now, later: later)
            }
        }
        shownMinutes = promised
        return promised
    }

    private mutating func adopt(_ arrival: Date, at now: Date) {
        promise = arrival
        disagreement = nil
        shownMinutes = Self.minutes(until: arrival, from: now)
    }
}
