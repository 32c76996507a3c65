import Foundation

/// When a draining node moves its streams: the drivers' window, a handover, then the watchers' window.
public struct DrainPlan: Sendable, Hashable {
    /// The drivers' closes are spread over `[start, start + driversWindow)`.
    public var start: Date
    /// Seconds the drivers' closes take.
    public var driversWindow: TimeInterval
    /// Seconds between the drivers' window and the watchers': for the last driver to reconnect elsewhere and send,
    /// its positions reaching its watchers through the bus while they are still here.
    public var handover: TimeInterval
    /// Seconds the watchers' closes take.
    public var watchersWindow: TimeInterval

    /// A plan starting at `start`.
    public init(start: Date, driversWindow: TimeInterval, handover: TimeInterval, watchersWindow: TimeInterval) {
        self.start = start
        self.driversWindow = driversWindow
        self.handover = handover
        self.watchersWindow = watchersWindow
    }

    /// When the watchers' window opens.
    public var watchersStart: Date { start.addingTimeInterval(driversWindow + handover) }
    /// When every planned close has been made.
    public var end: Date { watchersStart.addingTimeInterval(watchersWindow) }
}
