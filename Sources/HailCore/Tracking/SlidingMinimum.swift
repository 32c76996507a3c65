import Foundation

/// The smallest of the values noted in the last `window` seconds, kept in a few entries: a value with a smaller or
/// equal one noted after it can never be the smallest again, so it is dropped when that one comes.
///
/// Pure value: the caller says when each value was noted; nothing reads the clock.
public struct SlidingMinimum: Sendable, Hashable {
    /// How long a value counts towards the smallest, seconds.
    public let window: TimeInterval

    /// The most entries kept; past it the oldest go first, so a long run of growing values forgets its start.
    public static let capacity = 64

    /// Candidates for the smallest, oldest and smallest first, each larger than the ones before it.
    private var entries: [Entry] = []

    private struct Entry: Sendable, Hashable {
        var at: Date
        var value: Double
    }

    /// Creates an empty minimum over `window` seconds (two minutes for a window that is not a finite number).
    public init(window: TimeInterval) {
        self.window = window.isFinite ? max(0, window) : 120
    }

    /// The smallest value noted within the window up to the last note, or nil before any.
    public var minimum: Double? { entries.first?.value }

    /// Notes `value` at `at`; values that are not finite numbers are ignored.
    public mutating func note(_ value: Double, at: Date) {
        guard value.isFinite else { return }
        while let last = entries.last, last.value >= value { entries.removeLast() }
        entries.append(Entry(at: at, value: value))
        let cutoff = at.addingTimeInterval(-window)
        while let first = entries.first, first.at < cutoff { entries.removeFirst() }
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }
}
