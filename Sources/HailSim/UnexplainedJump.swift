import Foundation

/// One frame whose drawn car moved more than 50 m from the frame before without being one of the glide's designed
/// snaps, with what the audit knew of it, so it can be traced from the report alone.
public struct UnexplainedJump: Sendable, Hashable, Codable {
    /// The trip on screen.
    public var tripID: String
    /// The driver whose car it was.
    public var driverID: String
    /// When the frame was drawn (seconds since 1970).
    public var at: Double
    /// The trip state on screen.
    public var state: String
    /// How far the drawn car moved from the frame before, metres.
    public var meters: Double
    /// Seconds since the frame before.
    public var sinceFrameSeconds: Double?
    /// The batch of the pin shown now and of the one shown in the frame before.
    public var seq: Int64?
    /// The batch of the pin shown in the frame before.
    public var previousSeq: Int64?
    /// Seconds between the server's receipts of those two pins.
    public var receiptGapSeconds: Double?
    /// The rider's app's estimate of the server's clock minus its own, this frame and the frame before: the
    /// simulated clocks are one, so these are the estimate's errors, and the marker is drawn on that clock.
    public var clockOffsetSeconds: Double?
    /// The same for the frame before.
    public var previousClockOffsetSeconds: Double?
}
