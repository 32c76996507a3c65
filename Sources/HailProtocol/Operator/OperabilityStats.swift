import Foundation

/// The design's operability numbers for the operator's side panel, on the node that serves the console, since it
/// started: crash-free sessions, battery per active hour, time degraded, resync size, refused proposals, and the
/// flags in force. Each is nil until something was measured.
public struct OperabilityStats: Codable, Sendable, Hashable {
    /// App sessions reported by telemetry.
    public var sessions: Int
    /// The share of those not followed by a crash report, 0 to 1.
    public var crashFreeSessions: Double?
    /// Drivers' battery percentage points per hour active on battery.
    public var batteryPercentPerActiveHour: Double?
    /// The share of drivers' online time their location ran degraded, 0 to 1.
    public var degradedShareOfOnlineTime: Double?
    /// Trip streams resumed after a cursor.
    public var resyncs: Int
    /// Frames each of those replayed, on average.
    public var framesPerResync: Double?
    /// Trip versions each brought its app past, on average.
    public var tripVersionsPerResync: Double?
    /// Trip intents the server refused (403, 409, 422).
    public var refusedProposals: Int
    /// Cohort rules in the flags in force.
    public var flagCohorts: Int
    /// When the flags in force were read.
    public var flagsReadAt: Date?
    /// False when the last read of the flags file was refused (the flags in force kept).
    public var flagsLastReadApplied: Bool

    /// Creates the numbers.
    public init(
        sessions: Int, crashFreeSessions: Double?, batteryPercentPerActiveHour: Double?,
        degradedShareOfOnlineTime: Double?, resyncs: Int, framesPerResync: Double?, tripVersionsPerResync: Double?,
        refusedProposals: Int, flagCohorts: Int, flagsReadAt: Date?, flagsLastReadApplied: Bool
    ) {
        self.sessions = sessions
        self.crashFreeSessions = crashFreeSessions
        self.batteryPercentPerActiveHour = batteryPercentPerActiveHour
        self.degradedShareOfOnlineTime = degradedShareOfOnlineTime
        self.resyncs = resyncs
        self.framesPerResync = framesPerResync
        self.tripVersionsPerResync = tripVersionsPerResync
        self.refusedProposals = refusedProposals
        self.flagCohorts = flagCohorts
        self.flagsReadAt = flagsReadAt
        self.flagsLastReadApplied = flagsLastReadApplied
    }
}
