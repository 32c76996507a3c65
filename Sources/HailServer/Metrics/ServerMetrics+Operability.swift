import Foundation
import HailProtocol

/// The design's operability numbers (seed 004: "Position age at p99. Time in degraded mode per trip. Battery drain
/// per active hour, by device model. Reconnects and resync size. Disagreements between what a device proposed and
/// what the server confirmed. Crash-free sessions."), segmented by version, device and region with bounded labels
/// (`ClientLabelBounds.segment`), and the flags' reloads. docs/DEPLOY.md lists every series.
extension ServerMetrics {
    /// The labels of a segmented series for `role`.
    private static func labels(_ role: Role, _ segment: ClientSegment) -> MetricsRegistry.Labels {
        ["role": role.rawValue, "version": segment.version, "device": segment.device, "region": segment.region]
    }

    /// Has every scrape set `hail_loop_connections{loop}` from `read` (the connections each of the node's event loops
    /// holds, in loop order), so an operator sees whether the loops share the node's connections evenly.
    public func loopConnections(_ read: @escaping @Sendable () -> [Int]) {
        registry.addCollector { registry in
            for (loop, count) in read().enumerated() {
                registry.set("hail_loop_connections", Double(count), labels: ["loop": "\(loop)"])
            }
        }
    }

    static func declareOperability(_ registry: MetricsRegistry) {
        registry.declare(
            "hail_loop_connections", type: "gauge",
            help: "TCP connections each event loop holds (HTTP and WebSocket); a new one goes to the loop holding"
                + " fewest.")
        registry.declare(
            "hail_flags_reloads_total", type: "counter",
            help: "Reloads of the flags file (SIGHUP), by result: applied, or rejected (the flags in force kept).")
        registry.declare(
            "hail_flags_last_reload_successful", type: "gauge",
            help: "1 when the last read of the flags file (start or reload) was applied, 0 when it was rejected.")
        registry.declare(
            "hail_flags_last_reload_success_timestamp_seconds", type: "gauge",
            help: "When the flags in force were read (Unix seconds).")
        registry.declare("hail_flags_cohorts", type: "gauge", help: "Cohort rules in the flags in force.")
        registry.declare(
            "hail_config_answers_total", type: "counter",
            help: "GET /v1/config answers by role and the live updates they set (stream, poll; none for drivers).")
        registry.declare(
            "hail_sessions_total", type: "counter",
            help: "App sessions reported by telemetry, by role, version, device and region.")
        registry.declare(
            "hail_session_crashes_total", type: "counter",
            help: "Sessions whose app said the session before ended in a crash; 1 - crashes/sessions is crash-free.")
        registry.declare(
            "hail_battery_drain_percent_per_hour", type: "histogram",
            help: "Battery percentage points an app lost per hour active on battery, one observation per telemetry"
                + " batch covering at least 5 minutes of it, by device model.",
            buckets: [1, 2, 3, 5, 8, 12, 20, 30, 50])
        registry.declare(
            "hail_battery_drained_percent_total", type: "counter",
            help: "Battery percentage points lost while active on battery, by role, version, device and region.")
        registry.declare(
            "hail_battery_active_seconds_total", type: "counter",
            help: "Seconds active on battery the drain was measured over; 3600 x drained / seconds is the drain per"
                + " active hour.")
        registry.declare(
            "hail_app_active_seconds_total", type: "counter",
            help: "Seconds apps were active (drivers online, riders watching a trip), by role, version, device, region."
        )
        registry.declare(
            "hail_degraded_seconds_total", type: "counter",
            help: "Seconds drivers' location ran degraded (heat, Low Power, a flag's cap), by version, device, region.")
        registry.declare(
            "hail_drivers_degraded", type: "gauge",
            help: "Online drivers whose location is degraded now, by region, among the drivers this node ingests.")
        registry.declare(
            "hail_resyncs_total", type: "counter",
            help: "Trip streams resumed after a cursor (after=), by role, version, device and region.")
        registry.declare(
            "hail_resync_frames_total", type: "counter",
            help: "Frames a resumed trip stream replayed before live ones (the trip, the newest position).")
        registry.declare(
            "hail_resync_trip_versions_total", type: "counter",
            help: "Trip versions a resumed stream brought its app past the one it had (its version= query).")
        registry.declare(
            "hail_proposals_refused_total", type: "counter",
            help: "Trip intents the server refused (403, 409, 422), by kind, reason, version, device and region.")
    }

    /// The design's numbers on this node since it started, for the operator's side panel.
    public func operability() -> OperabilityStats {
        func ratio(_ part: Double, _ whole: Double) -> Double? { whole > 0 ? part / whole : nil }
        let sessions = registry.total("hail_sessions_total")
        let resyncs = registry.total("hail_resyncs_total")
        let stamp = registry.total("hail_flags_last_reload_success_timestamp_seconds")
        return OperabilityStats(
            sessions: Int(sessions),
            crashFreeSessions: ratio(sessions - registry.total("hail_session_crashes_total"), sessions),
            batteryPercentPerActiveHour: ratio(
                registry.total("hail_battery_drained_percent_total", matching: ["role": "driver"]) * 3600,
                registry.total("hail_battery_active_seconds_total", matching: ["role": "driver"])),
            degradedShareOfOnlineTime: ratio(
                registry.total("hail_degraded_seconds_total"),
                registry.total("hail_app_active_seconds_total", matching: ["role": "driver"])),
            resyncs: Int(resyncs), framesPerResync: ratio(registry.total("hail_resync_frames_total"), resyncs),
            tripVersionsPerResync: ratio(registry.total("hail_resync_trip_versions_total"), resyncs),
            refusedProposals: Int(registry.total("hail_proposals_refused_total")),
            flagCohorts: Int(registry.total("hail_flags_cohorts")),
            flagsReadAt: stamp > 0 ? Date(timeIntervalSince1970: stamp) : nil,
            flagsLastReadApplied: registry.total("hail_flags_last_reload_successful") == 1)
    }

    /// The flags were read at start: applied, or (only with the defaults standing in) not.
    public func flagsLoaded(successfully: Bool, cohorts: Int, at now: Date) {
        registry.set("hail_flags_last_reload_successful", successfully ? 1 : 0)
        if successfully { registry.set("hail_flags_last_reload_success_timestamp_seconds", now.timeIntervalSince1970) }
        registry.set("hail_flags_cohorts", Double(cohorts))
    }

    /// The flags file was read again: applied, or rejected with the flags in force kept.
    public func flagsReloaded(successfully: Bool, cohorts: Int, at now: Date) {
        registry.add("hail_flags_reloads_total", labels: ["result": successfully ? "applied" : "rejected"])
        flagsLoaded(successfully: successfully, cohorts: cohorts, at: now)
    }

    /// `GET /v1/config` answered `config`.
    public func configAnswered(_ config: ClientConfig) {
        registry.add(
            "hail_config_answers_total",
            labels: ["role": config.role.rawValue, "live_stream": config.liveStream?.mode.rawValue ?? "none"])
    }

    /// A telemetry batch from `role` in `segment` was accepted.
    public func telemetry(
        _ batch: TelemetryBatch, summary: TelemetrySummary, role: Role, segment: ClientSegment
    ) {
        let labels = Self.labels(role, segment)
        if batch.startsSession {
            registry.add("hail_sessions_total", labels: labels)
            if batch.previousSessionCrashed { registry.add("hail_session_crashes_total", labels: labels) }
        }
        if summary.activeSeconds > 0 {
            registry.add("hail_app_active_seconds_total", summary.activeSeconds, labels: labels)
        }
        if summary.degradedSeconds > 0, role == .driver {
            registry.add(
                "hail_degraded_seconds_total", summary.degradedSeconds,
                labels: ["version": segment.version, "device": segment.device, "region": segment.region])
        }
        if summary.unpluggedActiveSeconds > 0 {
            registry.add("hail_battery_drained_percent_total", summary.drainedPercent, labels: labels)
            registry.add("hail_battery_active_seconds_total", summary.unpluggedActiveSeconds, labels: labels)
        }
        if let rate = summary.drainPercentPerHour {
            registry.observe("hail_battery_drain_percent_per_hour", rate, labels: ["device": segment.device])
        }
    }

    /// A trip stream resumed after a cursor and replayed `frames` frames, `tripVersions` trip versions past the
    /// one its app had (0 when it did not say).
    public func resync(role: Role, segment: ClientSegment, frames: Int, tripVersions: Int) {
        let labels = Self.labels(role, segment)
        registry.add("hail_resyncs_total", labels: labels)
        registry.add("hail_resync_frames_total", Double(frames), labels: labels)
        if tripVersions > 0 { registry.add("hail_resync_trip_versions_total", Double(tripVersions), labels: labels) }
    }

    /// A trip intent of `kind` (request, cancel, accept, arrived, started, ended) was refused with `reason` (the
    /// error code: forbidden, invalid_state, idempotency_key_reused).
    public func proposalRefused(kind: String, reason: String, segment: ClientSegment) {
        registry.add(
            "hail_proposals_refused_total",
            labels: [
                "kind": kind, "reason": reason, "version": segment.version, "device": segment.device,
                "region": segment.region,
            ])
    }

    /// The degraded drivers now, by region: every region of the flags and every one reported before keeps its
    /// series, at 0 when it has none.
    public func driversDegraded(_ byRegion: [String: Int], regions: [String]) {
        let all = degradedRegions.withLock { reported in
            reported.formUnion(regions + [ClientLabelBounds.unknown] + byRegion.keys)
            return reported
        }
        for region in all {
            registry.set("hail_drivers_degraded", Double(byRegion[region] ?? 0), labels: ["region": region])
        }
    }
}
