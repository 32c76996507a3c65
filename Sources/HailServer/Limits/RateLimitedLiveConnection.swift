import Foundation
import HailProtocol
import Synchronization

/// A live stream whose client may send at most `bucket`'s rate of messages. The first message over it
/// ends the stream's inbound side (it and everything after it are not read); once the stream has
/// finished with the messages before it (their acks included), `closeIfRefused()` closes the socket with
/// 4029 and a reason naming the limit.
///
/// Closing rather than dropping the excess: a client sending faster than any honest app is broken or
/// hostile, and a driver app reconnects with backoff after 4029, while a silent drop would hide lost
/// positions from an honest app with a bug.
final class RateLimitedLiveConnection: LiveConnection {
    let inbound: AsyncStream<LiveInbound>
    private let base: any LiveConnection
    private let refusal = RefusalRecord()

    /// The refusal, shared between the reading task and `closeIfRefused()`.
    private final class RefusalRecord: Sendable {
        let value = Mutex<RateLimitRefusal?>(nil)
    }

    /// Wraps `base`; `now` reads the server's clock for each message, `refused` counts a refusal.
    init(
        _ base: any LiveConnection, bucket: TokenBucket, now: @escaping @Sendable () -> Date,
        refused: @escaping @Sendable (RateLimitRefusal) -> Void
    ) {
        self.base = base
        let messages = base.inbound
        let refusal = refusal
        // Bounded like the connection it wraps, so reading ahead to count messages never hoards them.
        inbound = AsyncStream(bufferingPolicy: .bufferingOldest(1024)) { continuation in
            let task = Task {
                var bucket = bucket
                for await message in messages {
                    if case .reject(let seconds) = bucket.take(now: now()) {
                        let over = RateLimitRefusal(
                            limit: "messagesPerConnection", rate: bucket.rate, retryAfterSeconds: seconds)
                        refusal.value.withLock { $0 = over }
                        refused(over)
                        break
                    }
                    if case .dropped = continuation.yield(message) {
                        await base.close(
                            code: WebSocketCloseCode.rateLimited.rawValue,
                            reason: "more than 1024 messages waiting to be read")
                        break
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func send(_ message: BusMessage) async { await base.send(message) }

    func close(code: UInt16, reason: String) async { await base.close(code: code, reason: reason) }

    /// Closes with 4029 if the client went over its rate; call once the stream has returned.
    func closeIfRefused() async {
        guard let over = refusal.value.withLock({ $0 }) else { return }
        await base.close(code: WebSocketCloseCode.rateLimited.rawValue, reason: over.message)
    }
}
