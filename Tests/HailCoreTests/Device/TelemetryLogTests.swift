import Foundation
import HailCore
import Testing

@Suite("Telemetry log: when a batch goes and what it keeps")
struct TelemetryLogTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func sample(_ minute: Int, level: Double = 0.8) -> DeviceSample {
        DeviceSample(
            at: start.addingTimeInterval(Double(minute) * 60), batteryLevel: level, batteryState: .unplugged,
            thermalState: .nominal, lowPower: false, active: true, degraded: false)
    }

    static func minutes(_ batch: TelemetryLog.Batch?) -> [Int]? {
        batch.map { $0.samples.map { Int($0.at.timeIntervalSince(start) / 60) } }
    }

    @Test func theFirstSampleGoesAtOnceThenABatchEveryTenMinutesStartingWithTheLastAccepted() {
        var log = TelemetryLog()
        let first = log.record(Self.sample(0))
        #expect(Self.minutes(first) == [0])
        #expect(first?.startsSession == true)
        log.accepted()
        #expect(log.sessionReported)
        for minute in 1...9 { #expect(log.record(Self.sample(minute)) == nil) }
        // Minute 11: the oldest waiting sample (minute 1) is ten minutes old.
        #expect(log.record(Self.sample(10)) == nil)
        let second = log.record(Self.sample(11))
        #expect(Self.minutes(second) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
        #expect(second?.startsSession == false)
        log.accepted()
        #expect(log.anchor?.at == Self.sample(11).at)
        #expect(log.pending.isEmpty)
    }

    @Test func aBatchWithNoAnswerGoesAgainWithWhatCameSince() {
        var log = TelemetryLog()
        _ = log.record(Self.sample(0))
        log.failed()
        #expect(!log.sessionReported)
        // Still the session's first batch: it goes with the next sample, both samples in it.
        let retry = log.record(Self.sample(1))
        #expect(Self.minutes(retry) == [0, 1])
        #expect(retry?.startsSession == true)
        // Nothing more goes while one is in flight.
        #expect(log.record(Self.sample(2)) == nil)
        log.accepted()
        #expect(log.pending.map(\.at) == [Self.sample(2).at])
    }

    @Test func aRefusedBatchIsDroppedAndCounted() {
        var log = TelemetryLog()
        _ = log.record(Self.sample(0))
        log.refused()
        #expect(log.dropped == 1 && log.pending.isEmpty && !log.sessionReported)
        #expect(log.record(Self.sample(1))?.startsSession == true)
    }

    @Test func aFullBatchGoesEarlyAndOfflineTheOldestAreDropped() {
        let configuration = TelemetryLog.Configuration(
            sampleInterval: 60, sendInterval: 600, maximumSamplesPerBatch: 4, maximumPendingSamples: 6)
        var log = TelemetryLog(configuration: configuration)
        _ = log.record(Self.sample(0))
        log.accepted()
        _ = log.record(Self.sample(1))
        _ = log.record(Self.sample(2))
        // The anchor and three samples fill a batch of four.
        #expect(Self.minutes(log.record(Self.sample(3))) == [0, 1, 2, 3])
        log.failed()
        // Offline: every batch fails; past six waiting samples the oldest go.
        var last: TelemetryLog.Batch?
        for minute in 4...9 {
            last = log.record(Self.sample(minute))
            log.failed()
        }
        #expect(log.dropped == 3)
        #expect(log.pending.map { Int($0.at.timeIntervalSince(Self.start) / 60) } == [4, 5, 6, 7, 8, 9])
        #expect(Self.minutes(last) == [0, 4, 5, 6])
    }
}
