import Foundation
import HailCore
import HailProtocol
import HailTesting
import Testing

/// A batch like a driver's phone produces: a car moving along, fixes one to four seconds apart,
/// sometimes with unknown heading or speed, occasionally a wild jump (a GPS glitch).
private func randomBatch(using rng: inout SplitMix64) -> LocationBatch {
    let count = Int.random(in: 0...60, using: &rng)
    var lat = Double.random(in: -89...89, using: &rng)
    var lng = Double.random(in: -179...179, using: &rng)
    var t = Double.random(in: 0...2_000_000_000, using: &rng)
    var points = [LocationPoint]()
    for _ in 0..<count {
        if Int.random(in: 0..<50, using: &rng) == 0 {
            lat = Double.random(in: -90...90, using: &rng)
            lng = Double.random(in: -180...180, using: &rng)
        } else {
            lat = min(90, max(-90, lat + Double.random(in: -0.0005...0.0005, using: &rng)))
            lng = min(180, max(-180, lng + Double.random(in: -0.0005...0.0005, using: &rng)))
        }
        t += Double.random(in: 1...4, using: &rng)
        let unknownHeading = Int.random(in: 0..<10, using: &rng) == 0
        let unknownSpeed = Int.random(in: 0..<10, using: &rng) == 0
        points.append(
            LocationPoint(
                lat: lat, lng: lng, accuracy: Double.random(in: 0...60, using: &rng),
                heading: unknownHeading ? -1 : Double.random(in: 0..<360, using: &rng),
                speed: unknownSpeed ? -1 : Double.random(in: 0...40, using: &rng),
                t: Date(timeIntervalSince1970: t)))
    }
    let seq =
        Bool.random(using: &rng)
        ? Int64.random(in: 0...1000, using: &rng) : Int64.random(in: 0...Int64.max, using: &rng)
    return LocationBatch(seq: seq, points: points, backlog: Bool.random(using: &rng))
}

private func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " ")
}

private func decodeError(_ bytes: [UInt8]) -> LocationBatchCodecError? {
    do {
        _ = try LocationBatchCodec.decode(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

@Suite struct LocationBatchCodecRoundTrip {
    @Test func randomBatchesRoundTripToTheirQuantizedValueAndReencodeIdentically() throws {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<3_000 {
            let batch = randomBatch(using: &rng)
            let bytes = try LocationBatchCodec.encode(batch)
            let decoded = try LocationBatchCodec.decode(bytes)
            #expect(decoded == (try LocationBatchCodec.quantized(batch)))
            #expect(try LocationBatchCodec.encode(decoded) == bytes)
            for (original, copy) in zip(batch.points, decoded.points) {
                #expect(abs(original.lat - copy.lat) <= 0.5e-7 + 1e-12)
                #expect(abs(original.lng - copy.lng) <= 0.5e-7 + 1e-12)
                #expect(abs(original.accuracy - copy.accuracy) <= 0.05 + 1e-9)
                #expect(abs(original.t.timeIntervalSince(copy.t)) <= 0.0005 + 1e-6)
            }
        }
    }

    @Test func binaryIsSmallerThanJSONForEveryBatch() throws {
        var rng = SplitMix64(seed: 42)
        var binaryTotal = 0
        var jsonTotal = 0
        var rawJSONTotal = 0
        for _ in 0..<1_000 {
            let batch = randomBatch(using: &rng)
            // Compare with the JSON of the quantized batch, so JSON is not penalised for 17-digit doubles.
            let json = try HailJSON.encode(LocationBatchCodec.quantized(batch))
            let binary = try LocationBatchCodec.encode(batch)
            #expect(binary.count < json.count)
            binaryTotal += binary.count
            jsonTotal += json.count
            rawJSONTotal += try HailJSON.encode(batch).count
        }
        // Measured at 0.109 of quantized JSON and 0.075 of raw JSON (docs/PROTOCOL.md); fail if that regresses.
        #expect(Double(binaryTotal) / Double(jsonTotal) < 0.12)
        #expect(Double(binaryTotal) / Double(rawJSONTotal) < 0.08)
    }

    @Test func tenPointBatchHasExactBytes() throws {
        let bytes = try LocationBatchCodec.encodeBytes(Fixtures.tenPointBatch)
        #expect(bytes.count == 105)
        // The header and first point, absolute, then nine 9-byte deltas; docs/PROTOCOL.md walks through it.
        #expect(hex(bytes.prefix(24)) == "b1 00 2a 0a c0 88 91 a1 03 c0 f2 ea 46 5a 9a 21 fc 0c a6 cc c7 f0 c6 68")
        #expect(hex(bytes.dropFirst(24).prefix(9)) == "bf 0c f7 0a 14 14 14 d0 0f")
        #expect(hex(bytes.suffix(9)) == "bf 0c f7 0a 27 14 14 d0 0f")
        let json = try HailJSON.encode(Fixtures.tenPointBatch)
        #expect(json.count == 1163)
    }

    @Test func unknownHeadingAndSpeedStayNegative() throws {
        let point = LocationPoint(
            lat: 0, lng: 0, accuracy: 0, heading: -1, speed: -1, t: Date(timeIntervalSince1970: 0))
        let decoded = try LocationBatchCodec.decode(LocationBatchCodec.encode(LocationBatch(seq: 0, points: [point])))
        #expect(decoded.points == [point])
    }

    @Test func extremesOfTheFormatRoundTrip() throws {
        let points = [
            LocationPoint(lat: 90, lng: 180, accuracy: 100_000, heading: 359.9, speed: 1000, t: .distantFuture),
            LocationPoint(lat: -90, lng: -180, accuracy: 0, heading: -360, speed: -1000, t: .distantPast),
            LocationPoint(lat: 90, lng: 180, accuracy: 100_000, heading: 359.9, speed: 1000, t: .distantFuture),
        ]
        let batch = LocationBatch(seq: Int64.max, points: points, backlog: true)
        let bytes = try LocationBatchCodec.encode(batch)
        #expect(try LocationBatchCodec.decode(bytes) == (try LocationBatchCodec.quantized(batch)))
        #expect(try LocationBatchCodec.encode(LocationBatchCodec.decode(bytes)) == bytes)
    }

    @Test func aKeepAliveWithoutAFixSetsFlagBitOneAndReadsBack() throws {
        let point = LocationPoint(
            lat: 43.7396, lng: 7.4276, accuracy: 4.5, heading: 212.5, speed: 0, t: Fixtures.receivedAt)
        let keepAlive = LocationBatch(seq: 9, points: [point], noFix: true)
        let bytes = try LocationBatchCodec.encodeBytes(keepAlive)
        #expect(Array(bytes.prefix(4)) == [0xB1, 0x02, 0x09, 0x01])
        #expect(bytes.count == (try LocationBatchCodec.encodeBytes(LocationBatch(seq: 9, points: [point]))).count)
        let decoded = try LocationBatchCodec.decode(bytes: bytes)
        #expect(decoded.noFix)
        #expect(!decoded.backlog)
        #expect(decoded == (try LocationBatchCodec.quantized(keepAlive)))
        // Both flags read (the codec's job); the server's check refuses the pair (the batch's job).
        var both = bytes
        both[1] = 0x03
        #expect(throws: APIError.invalidField("noFix", "a batch without a fix cannot be backlog")) {
            try WireDecoder.decodeLocationBatch(binary: Data(both))
        }
    }

    @Test func theSendTimeEndsTheBatchAsMillisecondsAfterItsLastFix() throws {
        let point = LocationPoint(
            lat: 43.7396, lng: 7.4276, accuracy: 4.5, heading: 212.5, speed: 8.3, t: Fixtures.receivedAt)
        let batch = LocationBatch(seq: 9, points: [point], sentAt: Fixtures.receivedAt.addingTimeInterval(1.5))
        let bytes = try LocationBatchCodec.encodeBytes(batch)
        let without = try LocationBatchCodec.encodeBytes(LocationBatch(seq: 9, points: [point]))
        // Flag bit 2, and 1,500 ms after the last fix as one zigzag varint: 3,000 = b8 17.
        #expect(bytes[1] == 0x04)
        #expect(Array(bytes.dropFirst(2)) == Array(without.dropFirst(2)) + [0xB8, 0x17])
        let decoded = try LocationBatchCodec.decode(bytes: bytes)
        let sent = try #require(decoded.sentAt)
        #expect(abs(sent.timeIntervalSince(Fixtures.receivedAt.addingTimeInterval(1.5))) < 0.0005)
        #expect(decoded == (try LocationBatchCodec.quantized(batch)))
        #expect(try LocationBatchCodec.encodeBytes(decoded) == bytes)
        // Without a point it is milliseconds since 1970.
        let empty = try LocationBatchCodec.encodeBytes(
            LocationBatch(seq: 1, points: [], sentAt: Date(timeIntervalSince1970: 1)))
        #expect(empty == [0xB1, 0x04, 0x01, 0x00, 0xD0, 0x0F])
    }

    @Test func theRoundTripFollowsTheSendTimeInWholeMilliseconds() throws {
        let point = LocationPoint(
            lat: 43.7396, lng: 7.4276, accuracy: 4.5, heading: 212.5, speed: 8.3, t: Fixtures.receivedAt)
        let sentAt = Fixtures.receivedAt.addingTimeInterval(1.5)
        let batch = LocationBatch(seq: 9, points: [point], sentAt: sentAt, roundTrip: 0.3124)
        let bytes = try LocationBatchCodec.encodeBytes(batch)
        let without = try LocationBatchCodec.encodeBytes(LocationBatch(seq: 9, points: [point], sentAt: sentAt))
        // Flag bits 2 and 3, then 312 ms as an unsigned varint: b8 02.
        #expect(bytes[1] == 0x0C)
        #expect(Array(bytes.dropFirst(2)) == Array(without.dropFirst(2)) + [0xB8, 0x02])
        let decoded = try LocationBatchCodec.decode(bytes: bytes)
        #expect(decoded.roundTrip == 0.312)
        #expect(decoded == (try LocationBatchCodec.quantized(batch)))
        #expect(try LocationBatchCodec.encodeBytes(decoded) == bytes)
        // At most 600 s: 600,001 ms (c1 cf 24) is out of range, and so is a negative round trip to encode.
        #expect(throws: LocationBatchCodecError.valueOutOfRange(field: .roundTrip, point: nil, offset: 4)) {
            try LocationBatchCodec.decode(bytes: [0xB1, 0x08, 0x01, 0x00, 0xC1, 0xCF, 0x24])
        }
        #expect(try LocationBatchCodec.decode(bytes: [0xB1, 0x08, 0x01, 0x00, 0xC0, 0xCF, 0x24]).roundTrip == 600)
        #expect(throws: LocationBatchCodecError.unrepresentable(field: .roundTrip, point: nil)) {
            try LocationBatchCodec.encodeBytes(LocationBatch(seq: 1, points: [], roundTrip: -0.01))
        }
        #expect(throws: LocationBatchCodecError.notFinite(field: .roundTrip, point: nil)) {
            try LocationBatchCodec.encodeBytes(LocationBatch(seq: 1, points: [], roundTrip: .nan))
        }
    }

    @Test func emptyBatchIsFourBytes() throws {
        #expect(try LocationBatchCodec.encodeBytes(LocationBatch(seq: 1, points: [])) == [0xB1, 0x00, 0x01, 0x00])
        #expect(
            try LocationBatchCodec.encodeBytes(LocationBatch(seq: 300, points: [], backlog: true)) == [
                0xB1, 0x01, 0xAC, 0x02, 0x00,
            ])
    }
}

@Suite struct LocationBatchCodecEncodingErrors {
    private let good = LocationPoint(
        lat: 1, lng: 2, accuracy: 3, heading: 4, speed: 5, t: Date(timeIntervalSince1970: 6))

    @Test(arguments: [
        (LocationBatchCodec.Field.lat, Double.nan), (.lng, .infinity), (.accuracy, -.infinity), (.heading, .nan),
        (.speed, .infinity), (.t, .nan),
    ])
    func nonFiniteValuesAreRefused(field: LocationBatchCodec.Field, value: Double) {
        var bad = good
        switch field {
        case .lat: bad.lat = value
        case .lng: bad.lng = value
        case .accuracy: bad.accuracy = value
        case .heading: bad.heading = value
        case .speed: bad.speed = value
        case .t: bad.t = Date(timeIntervalSince1970: value)
        case .seq, .sentAt, .roundTrip: break
        }
        #expect(throws: LocationBatchCodecError.notFinite(field: field, point: 2)) {
            try LocationBatchCodec.encode(LocationBatch(seq: 1, points: [good, good, bad]))
        }
    }

    @Test func unrepresentableValuesAreRefused() {
        #expect(throws: LocationBatchCodecError.unrepresentable(field: .seq, point: nil)) {
            try LocationBatchCodec.encode(LocationBatch(seq: -1, points: [good]))
        }
        var far = good
        far.t = Date(timeIntervalSince1970: 3e11)
        #expect(throws: LocationBatchCodecError.unrepresentable(field: .t, point: 0)) {
            try LocationBatchCodec.encode(LocationBatch(seq: 1, points: [far]))
        }
        var wide = good
        wide.lat = 3e7
        #expect(throws: LocationBatchCodecError.unrepresentable(field: .lat, point: 0)) {
            try LocationBatchCodec.encode(LocationBatch(seq: 1, points: [wide]))
        }
    }

    @Test func tooManyPointsAreRefused() {
        let batch = LocationBatch(seq: 1, points: Array(repeating: good, count: ProtocolLimits.maxPointsPerBatch + 1))
        #expect(throws: LocationBatchCodecError.tooManyPoints(count: 1001)) { try LocationBatchCodec.encode(batch) }
    }
}

@Suite struct LocationBatchCodecHostileInput {
    private func validBytes() throws -> [UInt8] { try LocationBatchCodec.encodeBytes(Fixtures.tenPointBatch) }

    @Test func everyTruncationIsATypedTruncatedError() throws {
        let bytes = try validBytes()
        for length in 0..<bytes.count {
            let error = decodeError(Array(bytes.prefix(length)))
            guard case .truncated = error else {
                Issue.record("prefix of \(length) bytes gave \(String(describing: error))")
                continue
            }
        }
    }

    @Test(
        arguments: [
            ([0x7B, 0x22], LocationBatchCodecError.unsupportedFormat(0x7B)),
            ([0xB2, 0x00, 0x01, 0x00], .unsupportedFormat(0xB2)),
            ([0xB1, 0x10, 0x01, 0x00], .reservedFlags(0x10)),
            ([0xB1, 0x80, 0x01, 0x00], .reservedFlags(0x80)),
            ([0xB1, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], .tooManyPoints(count: 4_294_967_295)),
            ([0xB1, 0x00, 0x01, 0xE9, 0x07], .tooManyPoints(count: 1001)),
            ([0xB1, 0x00, 0x01, 0xE8, 0x07, 0x00, 0x00], .truncated(offset: 7)),
            ([0xB1, 0x00, 0x80, 0x00, 0x00], .nonCanonicalVarint(offset: 2)),
            ([0xB1, 0x00, 0x01, 0x81, 0x00], .nonCanonicalVarint(offset: 3)),
            (
                [0xB1, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00],
                .overlongVarint(offset: 2)
            ),
            (
                [0xB1, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00],
                .overlongVarint(offset: 2)
            ),
            (
                [0xB1, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00],
                .valueOutOfRange(field: .seq, point: nil, offset: 2)
            ),
            (
                [0xB1, 0x00, 0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0, 0, 0, 0, 0],
                .valueOutOfRange(field: .lat, point: 0, offset: 4)
            ),
            ([0xB1, 0x00, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0x00], .trailingBytes(offset: 10, count: 1)),
            ([0xB1, 0x00, 0x01, 0x00, 0xB1], .trailingBytes(offset: 4, count: 1)),
        ] as [([UInt8], LocationBatchCodecError)])
    func malformedInputGivesTheExactError(bytes: [UInt8], expected: LocationBatchCodecError) {
        #expect(decodeError(bytes) == expected)
    }

    @Test func deltasThatOverflowAreRefused() throws {
        // Point 0 at +2^48 - 1 (the largest allowed), point 1 adds the largest delta a varint can hold.
        var bytes: [UInt8] = [0xB1, 0x00, 0x01, 0x02]
        func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }
        varint(((1 << 48) - 1) << 1)
        for _ in 0..<5 { bytes.append(0) }
        let overflowOffset = bytes.count
        varint(UInt64.max - 1)
        for _ in 0..<5 { bytes.append(0) }
        #expect(decodeError(bytes) == .valueOutOfRange(field: .lat, point: 1, offset: overflowOffset))
    }

    @Test func randomBytesNeverCrashAndAcceptedInputReencodesIdentically() {
        var rng = SplitMix64(seed: 42)
        var accepted = 0
        for round in 0..<20_000 {
            let length = Int.random(in: 0...64, using: &rng)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Most rounds get a valid header so the fuzzing reaches the point decoder.
            if round % 4 != 0, bytes.count >= 2 {
                bytes[0] = 0xB1
                bytes[1] &= 0x01
            }
            if let batch = try? LocationBatchCodec.decode(bytes: bytes) {
                accepted += 1
                #expect((try? LocationBatchCodec.encodeBytes(batch)) == bytes)
            }
        }
        #expect(accepted > 0)
    }

    @Test func mutatedValidBatchesNeverCrash() throws {
        var rng = SplitMix64(seed: 42)
        let original = try validBytes()
        for _ in 0..<20_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: index)
                }
            }
            if let batch = try? LocationBatchCodec.decode(bytes: bytes) {
                #expect((try? LocationBatchCodec.encodeBytes(batch)) == bytes)
            }
        }
    }

    @Test func serverEntryPointMapsCodecAndValidationErrors() throws {
        #expect(
            throws: APIError(
                code: .invalidBody, message: "invalid binary location batch: the batch ends early at byte 2")
        ) {
            try WireDecoder.decodeLocationBatch(binary: Data([0xB1, 0x00]))
        }
        let offEarth = LocationBatch(
            seq: 1, points: [LocationPoint(lat: 91, lng: 0, accuracy: 1, heading: 0, speed: 0, t: Fixtures.receivedAt)])
        #expect(throws: APIError.invalidField("points[0].lat", "lat must be between -90 and 90")) {
            try WireDecoder.decodeLocationBatch(binary: LocationBatchCodec.encode(offEarth))
        }
        let decoded = try WireDecoder.decodeLocationBatch(binary: LocationBatchCodec.encode(Fixtures.tenPointBatch))
        #expect(decoded == (try LocationBatchCodec.quantized(Fixtures.tenPointBatch)))
    }
}
