import Foundation

/// Turns the server's ETA into the minutes the rider sees, without flicker.
///
/// The smoother keeps a promise: the arrival time (server clock) behind the minutes on screen. The minutes are
/// the time left to it, rounded up (a promise of "4 min" is never early), 0 when it has come; so they count
/// down by themselves, a minute a minute, and a true countdown (4, 3, 2 min) is never a change of mind. A
/// new server estimate moves the promise only when the minutes it gives have disagreed with the minutes of the
/// promise, in the same direction (all later, or all sooner), at every instant for at least `hold` seconds; then
/// the newest estimate becomes the promise. So 4 -> 6 -> 4 min never reaches the screen, while a steady change
/// shows within `hold`. Once the promise has counted down to 0 ("now") it stays there while the estimate is
/// under a minute: a car a few seconds late is arriving, not "1 min" away again.
///
/// While the pin is locating (or the server sends no ETA) no minutes are shown, and the promise is kept: when
/// the minutes come back, an estimate within a minute of the promise's is held against it as any other
/// disagreement, so a dead zone, a resync or a relaunched app (which restores the promise, `restore(_:)`) does
/// not turn 4 min into 5 and back; an estimate further off becomes the promise at once, since the old one is no
/// longer worth keeping.
///
/// Told and asked apart: `observe(arrival:fixTakenAt:at:)` takes what changed (a new estimate, a new fix behind
/// the pin, or none), and `shown(at:)` says what the screen shows at any instant and changes nothing. Between two
/// observations the smoother is what it would be if it were asked at every instant: the minutes count down, a
/// disagreement moves the promise at the instant it has lasted the hold, the minutes go at the instant the pin
/// ages into locating. A screen drawn once a second and one drawn sixty times a second show the same minutes.
public struct EtaSmoother: Sendable, Hashable {
    /// How long a disagreement must last before the promise moves.
    public let hold: TimeInterval
    /// The server's estimate of the arrival as last observed; nil when there is none to show.
    private var estimate: Date?
    /// When the fix behind the pin was taken, as last observed; nil with no fix (the pin is locating).
    private var fixTakenAt: Date?
    /// The instant of the last observation (or `advance(to:)`): the fields below are as they stood then.
    private var observedAt: Date?
    /// The arrival behind the minutes (server time), kept through a gap; nil before the first estimate.
    private var promised: Date?
    /// True while minutes are on screen; false in a gap (no estimate, or a locating pin).
    private var showing = false
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

    // MARK: - Telling it

    /// Starts from the promise an earlier instance of the app kept for the same leg of the trip (a relaunch):
    /// its first estimate is held against it as after any gap.
    public mutating func restore(_ promise: Date) {
        guard promised == nil else { return }
        promised = promise
    }

    /// From `now` on, the server estimates the arrival at `arrival` (server time; nil when there is none to show,
    /// such as a leg the server sends no ETA for), and the pin shows a fix taken at `fixTakenAt` (nil: no fix). The
    /// minutes are shown while that fix is younger than `PinFreshness.locatingFrom`. Told the same again, it
    /// changes nothing: a resync that reads the same estimate does not start a hold over.
    public mutating func observe(arrival: Date?, fixTakenAt: Date?, at now: Date) {
        if observedAt != nil, arrival == estimate, fixTakenAt == self.fixTakenAt { return }
        run(to: now, including: false)
        estimate = arrival
        self.fixTakenAt = fixTakenAt
        observedAt = now
        judge(.instant(now))
    }

    /// `observe(arrival:fixTakenAt:at:)` with the server's ETA as `etaSeconds` from `now`.
    public mutating func observe(etaSeconds: Int?, fixTakenAt: Date?, at now: Date) {
        observe(arrival: etaSeconds.map { now.addingTimeInterval(TimeInterval($0)) }, fixTakenAt: fixTakenAt, at: now)
    }

    /// Brings the smoother's memory to `now`, as if it had been asked at every instant up to it: what it shows at
    /// `now` and after stays the same. The clock tick at `promiseMoves(after:)`, to store a promise the hold moved.
    public mutating func advance(to now: Date) {
        guard let observedAt, now > observedAt else { return }
        run(to: now, including: true)
        self.observedAt = now
    }

    // MARK: - Asking it

    /// The minutes on screen at `now` (`hold` and the pin's age counted up to it), or nil when none may be
    /// shown. Reads only: asked any number of times, at any instants, the smoother stays as it was.
    public func shown(at now: Date) -> Int? {
        var asked = self
        asked.advance(to: now)
        guard asked.showing, let promise = asked.promised else { return nil }
        return Self.minutes(until: promise, from: now)
    }

    /// The arrival behind the minutes at `now` (server time), kept through a gap; nil before the first estimate.
    public func promise(at now: Date) -> Date? {
        var asked = self
        asked.advance(to: now)
        return asked.promised
    }

    /// The instant after `now` at which the promise moves by itself, a disagreement having lasted the hold, if
    /// nothing new is observed before it; nil when it will not (the estimate agrees, or the pin goes locating first).
    public func promiseMoves(after now: Date) -> Date? {
        var asked = self
        asked.advance(to: now)
        guard asked.showing, let fixTakenAt = asked.fixTakenAt else { return nil }
        // Nothing moves once the pin is locating, so the walk ends there.
        return asked.run(to: fixTakenAt.addingTimeInterval(PinFreshness.locatingFrom), including: false)
    }

    // MARK: - Judging

    /// Where a judgement applies: one instant, or the stretch from the first date up to (not including) the second,
    /// over which nothing the judgement reads changes.
    private enum Span {
        case instant(Date)
        case stretch(Date, Date)
    }

    /// Judges every instant after the last observation up to `end` (and `end` itself when `including`), with
    /// nothing new observed; returns the first instant the promise moved, if it did.
    ///
    /// The minutes of the promise and of the estimate change only as each is a whole number of minutes away (and
    /// at it), and the pin only as its fix becomes `PinFreshness.locatingFrom` old: between two such breaks every
    /// instant would be judged the same, so each stretch is judged once.
    @discardableResult
    private mutating func run(to end: Date, including: Bool) -> Date? {
        guard var from = observedAt, end > from else { return nil }
        var moved: Date?
        while showing, from < end {
            let to = min(nextBreak(after: from) ?? end, end)
            moved = moved ?? judge(.stretch(from, to))
            from = to
        }
        if including, showing { moved = moved ?? judge(.instant(end)) }
        return moved
    }

    /// The first instant after `instant` at which the minutes of the promise or of the estimate change, or the pin
    /// turns locating; nil when none will.
    private func nextBreak(after instant: Date) -> Date? {
        var breaks: [Date] = []
        for arrival in [promised, estimate].compactMap({ $0 }) where arrival > instant {
            // The minutes become k at `arrival - k min`: the next break is at the largest k whose instant is ahead.
            var minutesAway = (arrival.timeIntervalSince(instant) / 60).rounded(.up) - 1
            var next = arrival.addingTimeInterval(-minutesAway * 60)
            while next <= instant, minutesAway > 0 {
                minutesAway -= 1
                next = arrival.addingTimeInterval(-minutesAway * 60)
            }
            if next > instant { breaks.append(next) }
        }
        if let locating = fixTakenAt?.addingTimeInterval(PinFreshness.locatingFrom), locating > instant {
            breaks.append(locating)
        }
        return breaks.min()
    }

    /// Judges `span` as the screen would see it, updating the promise, the gap and the disagreement; returns the
    /// instant the promise moved, if it did.
    @discardableResult
    private mutating func judge(_ span: Span) -> Date? {
        let instant: Date
        switch span {
        case .instant(let date): instant = date
        case .stretch(let from, let to): instant = from.addingTimeInterval(to.timeIntervalSince(from) / 2)
        }
        guard let estimate, PinFreshness(receivedAt: fixTakenAt, serverNow: instant).allowsETA else {
            showing = false
            disagreement = nil
            return nil
        }
        guard let promised else {
            adopt(estimate)
            return instant
        }
        let promisedMinutes = Self.minutes(until: promised, from: instant)
        let estimatedMinutes = Self.minutes(until: estimate, from: instant)
        if !showing, abs(estimatedMinutes - promisedMinutes) > 1 {
            // Back after a gap with an estimate far from the promise: the promise is stale.
            adopt(estimate)
            return instant
        }
        showing = true
        // At 0 ("now") the car is arriving: an estimate still under a minute is a car a few seconds late, and
        // the screen keeps saying so rather than going back to "1 min".
        if estimatedMinutes == promisedMinutes || (promisedMinutes == 0 && estimatedMinutes == 1) {
            disagreement = nil
            return nil
        }
        let later = estimatedMinutes > promisedMinutes
        if disagreement?.later != later {
            let start: Date
            switch span {
            case .instant(let date): start = date
            case .stretch(let from, _): start = from
            }
            disagreement = Disagreement(since: start, later: later)
        }
        guard let since = disagreement?.since else { return nil }
        let due = since.addingTimeInterval(hold)
        switch span {
        case .instant(let date):
            guard due <= date else { return nil }
            adopt(estimate)
            return date
        case .stretch(let from, let to):
            // The stretch runs up to `to`: the hold runs out inside it when it comes before.
            guard due < to else { return nil }
            adopt(estimate)
            return max(due, from)
        }
    }

    private mutating func adopt(_ arrival: Date) {
        promised = arrival
        disagreement = nil
        showing = true
    }
}
