import Foundation

/// What `hail bench wire` measured, printed as a table or as one JSON object.
public struct WireBenchmarkResult: Encodable, Sendable {
    /// One fix sent on its own, averaged over every fix of the trace.
    public struct SingleUpdate: Encodable, Sendable {
        /// Fixes measured.
        public let fixes: Int
        /// The `location` JSON text frames, all fixes together.
        public var jsonBytesTotal = 0
        /// The binary batches, all fixes together.
        public var binaryBytesTotal = 0
        /// The binary batches with their WebSocket frame headers.
        public var framedBinaryBytesTotal = 0

        /// Nothing measured yet.
        init(fixes: Int) { self.fixes = fixes }

        /// Mean bytes of one JSON frame.
        public var jsonBytesPerUpdate: Double { (Double(jsonBytesTotal) / Double(max(1, fixes))).rounded(toPlaces: 2) }
        /// Mean bytes of one binary batch.
        public var binaryBytesPerUpdate: Double {
            (Double(binaryBytesTotal) / Double(max(1, fixes))).rounded(toPlaces: 2)
        }

        private enum CodingKeys: String, CodingKey {
            case fixes, jsonBytesTotal, binaryBytesTotal, framedBinaryBytesTotal, jsonBytesPerUpdate
            case binaryBytesPerUpdate
        }

        /// Encodes the totals and the means.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(fixes, forKey: .fixes)
            try container.encode(jsonBytesTotal, forKey: .jsonBytesTotal)
            try container.encode(binaryBytesTotal, forKey: .binaryBytesTotal)
            try container.encode(framedBinaryBytesTotal, forKey: .framedBinaryBytesTotal)
            try container.encode(jsonBytesPerUpdate, forKey: .jsonBytesPerUpdate)
            try container.encode(binaryBytesPerUpdate, forKey: .binaryBytesPerUpdate)
        }
    }

    /// One policy replayed over the trace and scaled to a shift.
    public struct PolicyRow: Encodable, Sendable {
        /// Which policy.
        public let policy: String
        /// Seconds between sends, the policy's range.
        public let intervalSeconds: [Double]
        /// The hardware distance filter, metres.
        public let distanceFilterMeters: Double
        /// Batches sent in the replay itself.
        public let replayedSends: Int
        /// Fixes in those batches.
        public let replayedPoints: Int
        /// Their binary bytes.
        public let replayedBinaryBytes: Int
        /// Of those, the batch headers (format, flags, seq, count).
        public let replayedHeaderBytes: Int
        /// Of those, each batch's first fix, written in full.
        public let replayedFirstPointBytes: Int
        /// The same batches as JSON text frames.
        public let replayedJSONBytes: Int
        /// Sends (radio wake-ups) per 10-hour shift.
        public let sendsPerShift: Int
        /// Fixes per shift.
        public let pointsPerShift: Int
        /// Binary bytes uploaded per shift (the batches; what the driver sends).
        public let binaryBytesPerShift: Int
        /// The same as JSON text frames.
        public let jsonBytesPerShift: Int
        /// Binary bytes per shift with each WebSocket frame's header and mask.
        public let framedBinaryBytesPerShift: Int

        /// Mean fixes per batch.
        public var pointsPerBatch: Double {
            (Double(replayedPoints) / Double(max(1, replayedSends))).rounded(toPlaces: 2)
        }
        /// Binary bytes per fix, batched.
        public var binaryBytesPerPoint: Double {
            (Double(replayedBinaryBytes) / Double(max(1, replayedPoints))).rounded(toPlaces: 2)
        }
        /// JSON bytes per fix, batched.
        public var jsonBytesPerPoint: Double {
            (Double(replayedJSONBytes) / Double(max(1, replayedPoints))).rounded(toPlaces: 2)
        }
        /// Binary bytes per fix written as a difference from the fix before it in its batch.
        public var deltaBytesPerPoint: Double {
            let deltas = replayedPoints - replayedSends
            let bytes = replayedBinaryBytes - replayedHeaderBytes - replayedFirstPointBytes
            return (Double(bytes) / Double(max(1, deltas))).rounded(toPlaces: 2)
        }
        /// Binary bytes per send.
        public var binaryBytesPerBatch: Double {
            (Double(replayedBinaryBytes) / Double(max(1, replayedSends))).rounded(toPlaces: 2)
        }

        private enum CodingKeys: String, CodingKey {
            case policy, intervalSeconds, distanceFilterMeters, replayedSends, replayedPoints, replayedBinaryBytes
            case replayedHeaderBytes, replayedFirstPointBytes, replayedJSONBytes, sendsPerShift, pointsPerShift,
                binaryBytesPerShift, jsonBytesPerShift
            case framedBinaryBytesPerShift, pointsPerBatch, binaryBytesPerPoint, jsonBytesPerPoint
            case binaryBytesPerBatch, deltaBytesPerPoint
        }

        /// Encodes the counts and the derived means.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(policy, forKey: .policy)
            try container.encode(intervalSeconds, forKey: .intervalSeconds)
            try container.encode(distanceFilterMeters, forKey: .distanceFilterMeters)
            try container.encode(replayedSends, forKey: .replayedSends)
            try container.encode(replayedPoints, forKey: .replayedPoints)
            try container.encode(replayedBinaryBytes, forKey: .replayedBinaryBytes)
            try container.encode(replayedHeaderBytes, forKey: .replayedHeaderBytes)
            try container.encode(replayedFirstPointBytes, forKey: .replayedFirstPointBytes)
            try container.encode(replayedJSONBytes, forKey: .replayedJSONBytes)
            try container.encode(sendsPerShift, forKey: .sendsPerShift)
            try container.encode(pointsPerShift, forKey: .pointsPerShift)
            try container.encode(binaryBytesPerShift, forKey: .binaryBytesPerShift)
            try container.encode(jsonBytesPerShift, forKey: .jsonBytesPerShift)
            try container.encode(framedBinaryBytesPerShift, forKey: .framedBinaryBytesPerShift)
            try container.encode(pointsPerBatch, forKey: .pointsPerBatch)
            try container.encode(binaryBytesPerPoint, forKey: .binaryBytesPerPoint)
            try container.encode(jsonBytesPerPoint, forKey: .jsonBytesPerPoint)
            try container.encode(binaryBytesPerBatch, forKey: .binaryBytesPerBatch)
            try container.encode(deltaBytesPerPoint, forKey: .deltaBytesPerPoint)
        }
    }

    /// A figure against its target.
    public struct TargetCheck: Encodable, Sendable {
        /// What is compared.
        public let name: String
        /// The most allowed.
        public let target: Double
        /// What was measured.
        public let measured: Double
        /// True when `measured <= target`.
        public let met: Bool
        /// How far over the target (0 when met), in the figure's unit.
        public let missedBy: Double
        /// How far over, in percent of the target (0 when met).
        public let missedByPercent: Double

        /// Compares `measured` with `target`.
        init(name: String, target: Double, measured: Double) {
            self.name = name
            self.target = target
            self.measured = measured
            met = measured <= target
            missedBy = max(0, measured - target).rounded(toPlaces: 2)
            missedByPercent = max(0, (measured - target) / target * 100).rounded(toPlaces: 1)
        }
    }

    /// The design documents' own figures: about 50 bytes an update in protobuf, 9,000 updates and
    /// about 450 KB a 10-hour shift.
    public struct Design: Encodable, Sendable {
        /// Bytes per update.
        public let bytesPerUpdate = 50
        /// Updates per shift.
        public let updatesPerShift = 9_000
        /// Bytes per shift.
        public let bytesPerShift = 450_000
    }

    /// Always "wire".
    public let benchmark = "wire"
    /// The recorded drive replayed.
    public let trace: String
    /// Its fixes.
    public let traceFixes: Int
    /// Its length in seconds.
    public let traceSeconds: Int
    /// Seconds in the shift the figures are scaled to.
    public let shiftSeconds = Int(WireBenchmark.shiftSeconds)
    /// One fix per frame.
    public let singleUpdate: SingleUpdate
    /// Batched by the pipeline, per policy.
    public let policies: [PolicyRow]
    /// The design's figures.
    public let design = Design()
    /// The targets, checked on the on-trip nominal row (the most a driver sends).
    public let targets: [TargetCheck]
    /// The machine (the figures do not depend on it).
    public let machine: BenchMachine

    /// Builds the result and checks the targets on the first (busiest) row.
    init(
        traceName: String, traceFixes: Int, traceSeconds: Int, single: SingleUpdate, rows: [PolicyRow],
        machine: BenchMachine
    ) {
        trace = traceName
        self.traceFixes = traceFixes
        self.traceSeconds = traceSeconds
        singleUpdate = single
        policies = rows
        self.machine = machine
        let busiest = rows.first
        targets = [
            TargetCheck(
                name: "binaryBytesPerPointInBatches", target: 12, measured: busiest?.binaryBytesPerPoint ?? 0),
            TargetCheck(
                name: "binaryBytesPerShift", target: 110_000, measured: Double(busiest?.binaryBytesPerShift ?? 0)),
            TargetCheck(
                name: "designBytesPerUpdate", target: 50, measured: single.binaryBytesPerUpdate),
            TargetCheck(
                name: "designBytesPerShift", target: 450_000, measured: Double(busiest?.binaryBytesPerShift ?? 0)),
        ]
    }

    /// The human-readable report.
    public var table: String {
        var table = BenchTable(
            title: "hail bench wire: \(trace) (\(traceFixes) fixes over \(traceSeconds) s), scaled to a 10-hour shift")
        table.add(
            "one fix per frame",
            "JSON \(singleUpdate.jsonBytesPerUpdate.fixed(1)) B, binary \(singleUpdate.binaryBytesPerUpdate.fixed(1)) B"
                + " (design: about 50 B in protobuf)")
        for row in policies {
            table.add(
                row.policy,
                "\(row.sendsPerShift) sends, \(row.pointsPerShift) fixes, binary \(row.binaryBytesPerShift) B "
                    + "(\(row.binaryBytesPerPoint.fixed(2)) B/fix, \(row.pointsPerBatch.fixed(2)) fixes/batch; "
                    + "header \((Double(row.replayedHeaderBytes) / Double(max(1, row.replayedSends))).fixed(1)) B, "
                    + "first fix \((Double(row.replayedFirstPointBytes) / Double(max(1, row.replayedSends))).fixed(1)) B, "
                    + "each further fix \(row.deltaBytesPerPoint.fixed(1)) B), "
                    + "JSON \(row.jsonBytesPerShift) B (\(row.jsonBytesPerPoint.fixed(1)) B/fix), "
                    + "framed binary \(row.framedBinaryBytesPerShift) B")
        }
        for check in targets {
            let verdict =
                check.met
                ? "met"
                : "MISSED by \(check.missedBy.fixed(2)) (\(check.missedByPercent.fixed(1))% over)"
            table.add("target \(check.name)", "\(check.measured.fixed(2)) <= \(check.target.fixed(0)): \(verdict)")
        }
        table.add("note", "targets are checked on the busiest row (a whole shift on trip at full accuracy)")
        return table.text
    }
}
