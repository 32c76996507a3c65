import Foundation
import HailNet
import HailProtocol
import HailTime
import Synchronization

/// A stream's bus sink: holds back what the bus delivers while the stream's first frames (hello, the trip's
/// state) are still being read and sent, then sends each message to the socket on the publisher's thread.
final class BusGate: Sendable {
    private let connection: WebSocketConnection
    private let metrics: ServerMetrics
    private let time: Timeline
    /// Closes the stream after its last message (a trip that reached a final state).
    private let closesOnEnd: Bool
    private let held = Mutex<[BusMessage]?>([])
    /// Told of each position (a disposable message) as it arrives, before the gate: a drain's evidence.
    private let sawPosition: (@Sendable () -> Void)?

    /// A closed gate in front of `connection`.
    init(
        connection: WebSocketConnection, metrics: ServerMetrics, time: Timeline, closesOnEnd: Bool = false,
        sawPosition: (@Sendable () -> Void)? = nil
    ) {
        self.connection = connection
        self.metrics = metrics
        self.time = time
        self.closesOnEnd = closesOnEnd
        self.sawPosition = sawPosition
    }

    /// Sends `message`, or keeps it while the gate is closed.
    func deliver(_ message: BusMessage) {
        if message.kind == .disposable { sawPosition?() }
        let sendNow = held.withLock { held -> Bool in
            guard held != nil else { return true }
            held?.append(message)
            return false
        }
        if sendNow { send(message) }
    }

    /// The first frames are queued: sends what was held and lets the rest through.
    func open() {
        let waiting = held.withLock { held -> [BusMessage] in
            defer { held = nil }
            return held ?? []
        }
        for message in waiting { send(message) }
    }

    private func send(_ message: BusMessage) {
        let priority: MessagePriority = message.kind == .essential ? .essential : .disposable
        if connection.send(message.frame.shared, priority: priority), let publishedAt = message.publishedAt {
            metrics.publishToSend(time.now().timeIntervalSince(publishedAt))
        }
        if closesOnEnd, message.endsStream {
            connection.close(code: WebSocketCloseCode.normal.rawValue, reason: "trip ended")
        }
    }
}
