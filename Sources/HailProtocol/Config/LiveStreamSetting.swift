/// How a rider's app follows a trip: the WebSocket stream, or polls of `GET /v1/trips/{id}` at an interval.
///
/// `{"mode": "stream", "pollIntervalSeconds": 4}`. The interval is also the one the app polls at when the
/// stream cannot be had; in `poll` mode it polls at it from the start and opens no stream.
public struct LiveStreamSetting: Codable, Sendable, Hashable {
    /// Stream or poll.
    public enum Mode: String, Codable, Sendable, Hashable, CaseIterable {
        /// The live stream (`/v1/trips/{id}/live`).
        case stream
        /// Polls of the trip, no stream.
        case poll

        /// Reads the mode, naming the accepted values when the string is none of them.
        public init(from decoder: any Decoder) throws {
            self = try WireEnum.decode(from: decoder)
        }
    }

    /// Stream or poll.
    public var mode: Mode
    /// Seconds between polls.
    public var pollIntervalSeconds: Int

    /// Creates a setting.
    public init(mode: Mode, pollIntervalSeconds: Int = Self.defaultPollIntervalSeconds) {
        self.mode = mode
        self.pollIntervalSeconds = pollIntervalSeconds
    }

    /// The poll interval when none is set: about one driver update (2-4 s) behind, within the 5 s budget.
    public static let defaultPollIntervalSeconds = 4
    /// The range a flags file may set.
    public static let pollIntervalRange = 1...300

    /// Streaming, polling every 4 s only when the stream cannot be had.
    public static let stream = LiveStreamSetting(mode: .stream)
}
