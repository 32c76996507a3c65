import Foundation

/// The app's telemetry as pure logic: samples go in as they are taken, batches to send come out, and the
/// answer to each batch says what to keep. No clock, no I/O: the model samples on its own clock and sends.
///
/// The first batch of a session goes with its first sample, so the server counts the session (and a crash
/// of the one before) at once; after that a batch goes once its oldest sample is `sendInterval` old or it
/// is full. Each batch after the first starts with the last sample the server accepted, so the interval
/// between two batches is measured too (the server reads samples as intervals). A batch with no answer is
/// sent again with what came since; a refused one is dropped (it can never succeed). While nothing gets
/// through, the oldest samples beyond `maximumPendingSamples` are dropped and counted.
public struct TelemetryLog: Sendable, Hashable {
    /// When to sample and send.
    public struct Configuration: Sendable, Hashable {
        /// Seconds between samples.
        public var sampleInterval: TimeInterval
        /// The age of the oldest waiting sample at which a batch goes.
        public var sendInterval: TimeInterval
        /// The most samples in one batch, the carried-over first one included.
        public var maximumSamplesPerBatch: Int
        /// The most samples kept while batches get no answer.
        public var maximumPendingSamples: Int

        /// A sample a minute, a batch every ten minutes (at most 60 samples), four hours kept offline.
        public init(
            sampleInterval: TimeInterval = 60, sendInterval: TimeInterval = 600, maximumSamplesPerBatch: Int = 60,
            maximumPendingSamples: Int = 240
        ) {
            self.sampleInterval = max(1, sampleInterval)
            self.sendInterval = max(0, sendInterval)
            self.maximumSamplesPerBatch = max(2, maximumSamplesPerBatch)
            self.maximumPendingSamples = max(self.maximumSamplesPerBatch, maximumPendingSamples)
        }
    }

    /// A batch to send.
    public struct Batch: Sendable, Hashable {
        /// The samples, oldest first; after the session's first batch, the first is the last one accepted.
        public var samples: [DeviceSample]
        /// True for the session's first batch: the server counts the session.
        public var startsSession: Bool
    }

    /// The settings.
    public let configuration: Configuration
    /// Samples not yet accepted by the server, oldest first.
    public private(set) var pending: [DeviceSample] = []
    /// The last sample the server accepted, carried into the next batch.
    public private(set) var anchor: DeviceSample?
    /// True once a batch of this session was accepted.
    public private(set) var sessionReported = false
    /// Samples dropped because too many waited.
    public private(set) var dropped = 0
    /// How many of `pending` the batch in flight carries; nil when none is.
    public private(set) var inFlight: Int?

    /// An empty log for a new session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Records a sample; returns the batch to send now, if one is due.
    public mutating func record(_ sample: DeviceSample) -> Batch? {
        pending.append(sample)
        if inFlight == nil, pending.count > configuration.maximumPendingSamples {
            let excess = pending.count - configuration.maximumPendingSamples
            pending.removeFirst(excess)
            dropped += excess
        }
        return due(at: sample.at)
    }

    /// The batch due at `now`, marked in flight; nil when one is in flight already or none is due.
    public mutating func due(at now: Date) -> Batch? {
        guard inFlight == nil, let oldest = pending.first else { return nil }
        let full = pending.count + (anchor == nil ? 0 : 1) >= configuration.maximumSamplesPerBatch
        guard !sessionReported || full || now.timeIntervalSince(oldest.at) >= configuration.sendInterval else {
            return nil
        }
        let room = configuration.maximumSamplesPerBatch - (anchor == nil ? 0 : 1)
        let count = min(room, pending.count)
        inFlight = count
        return Batch(samples: (anchor.map { [$0] } ?? []) + pending.prefix(count), startsSession: !sessionReported)
    }

    /// The server accepted the batch in flight.
    public mutating func accepted() {
        guard let count = inFlight else { return }
        anchor = pending[count - 1]
        pending.removeFirst(count)
        inFlight = nil
        sessionReported = true
    }

    /// The server refused the batch in flight (it can never be accepted): its samples are dropped and counted.
    public mutating func refused() {
        guard let count = inFlight else { return }
        pending.removeFirst(count)
        dropped += count
        inFlight = nil
    }

    /// The batch in flight got no answer (or was rate limited): its samples wait for the next one.
    public mutating func failed() {
        inFlight = nil
    }
}
