import Foundation
import HailAppSeams
import HailClient
import HailCore
import HailProtocol

/// The driver stream, logging its state changes (connecting, connected, failed, hello, closed with the server's
/// code), each offer with its `expiresAt`, each withdrawal, and each batch it carried and the server acknowledged.
struct LoggingDriverChannel: DriverChannel {
    let inner: DriverLiveChannel
    let recorder: DriverRecorder

    func connect() async throws -> AsyncStream<DriverServerFrame> {
        stream("connecting")
        let frames: AsyncStream<DriverServerFrame>
        do {
            frames = try await inner.connect()
        } catch {
            stream("failed", error: "\(error)")
            throw error
        }
        stream("connected")
        let inner = self.inner
        let recorder = self.recorder
        return AsyncStream { continuation in
            let relay = Task {
                for await frame in frames {
                    Self.note(frame, recorder)
                    continuation.yield(frame)
                }
                var line = recorder.event("stream")
                line.stream = "closed"
                line.closeCode = await inner.lastServerClose()
                recorder.log.write(line)
                continuation.finish()
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    func send(_ batch: LocationBatch) async throws {
        // Noted first: the ack may come back before the send returns.
        recorder.sent(batch, via: "stream")
        try await inner.send(batch)
    }

    func disconnect() async { await inner.disconnect() }

    func lastServerClose() async -> UInt16? { await inner.lastServerClose() }

    private func stream(_ state: String, error: String? = nil) {
        var line = recorder.event("stream")
        line.stream = state
        line.error = error
        recorder.log.write(line)
    }

    private static func note(_ frame: DriverServerFrame, _ recorder: DriverRecorder) {
        switch frame {
        case .hello(let serverTime):
            var line = recorder.event("stream")
            line.stream = "hello"
            line.serverTime = serverTime.timeIntervalSince1970
            recorder.log.write(line)
        case .offer(let offer):
            var line = recorder.event("offer")
            line.trip = offer.trip.id
            line.version = offer.trip.version
            line.expiresAt = offer.expiresAt.timeIntervalSince1970
            recorder.log.write(line)
        case .offerWithdrawn(let tripID):
            var line = recorder.event("offerWithdrawn")
            line.trip = tripID
            recorder.log.write(line)
        case .ack(let ack):
            recorder.acknowledged(seq: ack.seq, via: "stream")
        case .tripUpdated:
            break
        }
    }
}
