import HailCore

/// Location batches from drivers, over HTTP or the driver stream, checked point by point.
extension LocationBatch: Validatable {
    /// Checks the seq, the point count (exactly one without a fix, and never backlog), `sentAt`, `roundTrip` (0 to
    /// `ProtocolLimits.maxRoundTripSeconds`) and every point; fields
    /// are named like `points[3].accuracy`.
    public func validate() throws(APIError) {
        guard seq >= 0 else { throw APIError.invalidField("seq", "seq must not be negative") }
        guard !points.isEmpty else { throw APIError.invalidField("points", "points must not be empty") }
        guard points.count <= ProtocolLimits.maxPointsPerBatch else {
            throw APIError.invalidField(
                "points", "points must hold at most \(ProtocolLimits.maxPointsPerBatch) fixes per batch")
        }
        if noFix {
            guard !backlog else { throw APIError.invalidField("noFix", "a batch without a fix cannot be backlog") }
            guard points.count == 1 else {
                throw APIError.invalidField("points", "a batch without a fix holds exactly one point (the last fix)")
            }
        }
        if let sentAt, !sentAt.timeIntervalSince1970.isFinite {
            throw APIError.invalidField("sentAt", "sentAt must be a finite date")
        }
        if let roundTrip {
            try FieldCheck.number(roundTrip, in: 0...ProtocolLimits.maxRoundTripSeconds, at: "roundTrip")
        }
        for (index, point) in points.enumerated() {
            try point.validate(at: FieldPath.index("points", index))
        }
    }
}

extension LocationPoint {
    /// Checks one fix; negative heading and speed are allowed because they mean "unknown". Field paths are only
    /// built for an error: a valid fix costs a few comparisons.
    public func validate(at prefix: @autoclosure () -> String) throws(APIError) {
        try FieldCheck.coordinate(coordinate, at: prefix())
        try FieldCheck.number(
            accuracy, in: 0...ProtocolLimits.maxAccuracyMeters, at: FieldPath.join(prefix(), "accuracy"))
        guard heading.isFinite else {
            throw APIError.invalidField(FieldPath.join(prefix(), "heading"), "heading must be a finite number")
        }
        guard heading < 360 else {
            throw APIError.invalidField(
                FieldPath.join(prefix(), "heading"), "heading must be below 360 (negative means unknown)")
        }
        guard speed.isFinite else {
            throw APIError.invalidField(FieldPath.join(prefix(), "speed"), "speed must be a finite number")
        }
        guard speed <= ProtocolLimits.maxSpeedMetersPerSecond else {
            throw APIError.invalidField(
                FieldPath.join(prefix(), "speed"),
                "speed must be at most \(Int(ProtocolLimits.maxSpeedMetersPerSecond)) m/s")
        }
        guard t.timeIntervalSince1970.isFinite else {
            throw APIError.invalidField(FieldPath.join(prefix(), "t"), "t must be a finite date")
        }
    }
}
