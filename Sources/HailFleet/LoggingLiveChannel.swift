import Foundation
import HailAppSeams
import HailClient
import HailCore
import HailProtocol

/// The rider's trip stream, logging its state changes: connecting, connected or failed, hello, and closed (with
/// the server's close code when it sent one).
struct LoggingLiveChannel: LiveTripChannel {
    let inner: RiderLiveChannel
    let log: FleetLog
    let rest: RESTOutcome

    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error> {
        try await open(tripID: tripID, after: seq, version: nil)
    }

    func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        stream("connecting", tripID: tripID)
        let frames: AsyncThrowingStream<RiderServerFrame, any Error>
        do {
            frames = try await inner.open(tripID: tripID, after: seq, version: version)
        } catch {
            stream("failed", tripID: tripID, error: error)
            throw error
        }
        stream("connected", tripID: tripID)
        let relay = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await frame in frames {
                        if case .hello(let serverTime) = frame {
                            relay.stream("hello", tripID: tripID, serverTime: serverTime)
                        }
                        continuation.yield(frame)
                    }
                    relay.stream("closed", tripID: tripID)
                    continuation.finish()
                } catch {
                    relay.stream("closed", tripID: tripID, error: error)
                    continuation.finish(throwing: error)
                }
            }
            // The model ending its iteration ends the relay's, which closes the socket.
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func stream(_ state: String, tripID: String, error: (any Error)? = nil, serverTime: Date? = nil) {
        var line = FleetEvent(t: rest.timeline.now().timeIntervalSince1970, ev: "stream")
        line.stream = state
        line.trip = tripID
        line.serverTime = serverTime?.timeIntervalSince1970
        if let error {
            line.error = "\(error)"
            line.closeCode = error.asCallError.closeCode
        }
        log.write(line)
    }
}
