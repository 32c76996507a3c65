import Foundation

/// What a pressed fault did.
public struct DemoFaultAnswer: Codable, Sendable, Hashable {
    /// One sentence for the console.
    public var done: String
    /// When the fault ends, for a dead zone or a stall.
    public var until: Date?

    /// Creates an answer.
    public init(done: String, until: Date?) {
        self.done = done
        self.until = until
    }
}
