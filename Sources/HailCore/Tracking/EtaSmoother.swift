import Foundation

/// Turns the server's ETA in seconds into the minutes the rider sees, without flicker.
///
/// The rule: minutes are the server's seconds rounded up (a promise of "4 min" is never early), and
/// 0 s is "now". The first value is shown at once. After that the shown minutes change only when every
/// update for at least `hold` seconds has disagreed with them in the same direction (all longer, or all
/// shorter); then the newest value is shown. So 4 -> 6 -> 4 min never flips the screen, while a steady
/// change shows within `hold`. While the pin is locating no minutes are shown at all. After that, a value
/// within a minute of the one shown before the gap (a gap under `gapMemory`) brings that one back and is
/// held against it as usual, so a dead zone or a resync in the middle does not turn 4 min into 5 and
/// back; any other value is shown at once, since the old one is no longer worth keeping.
public struct EtaSmoother: Sendable, Hashable {
    /// How long a disagreement must last before the shown minutes change.
    public let hold: TimeInterval
    /// The minutes on screen, or nil when none may be shown.
    public private(set) var shownMinutes: Int?
    private var disagreement: Disagreement?
    /// The minutes shown when the last gap began, and when.
    private var beforeGap: Remembered?

    /// How long the minutes shown before a gap are remembered.
    public static let gapMemory: TimeInterval = 60

    private struct Remembered: Sendable, Hashable {
        var minutes: Int
        var at: Date
    }

    private struct Disagreement: Sendable, Hashable {
        var since: Date
        var longer: Bool
    }

    /// Creates a smoother; `hold` defaults to 8 s, two to four driver updates.
    public init(hold: TimeInterval = 8) { self.hold = hold }

    /// The minutes shown for a server ETA of `seconds`: rounded up, never negative.
    public static func minutes(forSeconds seconds: Int) -> Int { max(0, (seconds + 59) / 60) }

    /// Takes the server's ETA at `now` (nil when it sent none) and the pin's freshness; returns what to show.
    @discardableResult
    public mutating func update(etaSeconds: Int?, pin: PinFreshness.Level, at now: Date) -> Int? {
        guard pin != .locating, let etaSeconds else {
            if let shownMinutes { beforeGap = Remembered(minutes: shownMinutes, at: now) }
            shownMinutes = nil
            disagreement = nil
            return nil
        }
        let candidate = Self.minutes(forSeconds: etaSeconds)
        if shownMinutes == nil, let before = beforeGap, now.timeIntervalSince(before.at) <= Self.gapMemory,
            abs(candidate - before.minutes) <= 1
        {
            shownMinutes = before.minutes
        }
        beforeGap = nil
        guard let shown = shownMinutes, candidate != shown else {
            shownMinutes = candidate
            disagreement = nil
            return candidate
        }
        let longer = candidate > shown
        if let current = disagreement, current.longer == longer {
            if now.timeIntervalSince(current.since) >= hold {
                shownMinutes = candidate
                disagreement = nil
            }
        } else {
            disagreement = Disagreement(since: now, longer: longer)
        }
        return shownMinutes
    }
}
