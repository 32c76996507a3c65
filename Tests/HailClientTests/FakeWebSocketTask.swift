import Foundation
import HailClient
import Synchronization

/// A double that behaves like `URLSessionWebSocketTask`: `resume()` returns at once, before any handshake, and
/// nothing is heard until the test plays the server's side with `deliver` or ends it with `drop`.
final class FakeWebSocketTask: WebSocketTask {
    private struct State {
        var resumed = false
        var pending: [Result<SocketFrame, FakeSocketError>] = []
        var receiver: CheckedContinuation<SocketFrame, any Error>?
        var sent: [SocketFrame] = []
        var pings: [@Sendable ((any Error)?) -> Void] = []
        var pingCount = 0
        var closes: [UInt16?] = []
        var peerCode = 0
        var peerReason = ""
    }

    private let state = Mutex(State())

    func resume() { state.withLock { $0.resumed = true } }

    func receiveFrame() async throws -> SocketFrame {
        try await withCheckedThrowingContinuation { continuation in
            let next = state.withLock { state -> Result<SocketFrame, FakeSocketError>? in
                guard !state.pending.isEmpty else {
                    state.receiver = continuation
                    return nil
                }
                return state.pending.removeFirst()
            }
            if let next { continuation.resume(with: next) }
        }
    }

    func sendFrame(_ frame: SocketFrame, completion: @escaping @Sendable ((any Error)?) -> Void) {
        state.withLock { $0.sent.append(frame) }
        completion(nil)
    }

    func ping(pong: @escaping @Sendable ((any Error)?) -> Void) {
        state.withLock {
            $0.pings.append(pong)
            $0.pingCount += 1
        }
    }

    /// Like URLSession's cancel: a receive waiting fails.
    func close(code: UInt16?, reason: String) {
        state.withLock { $0.closes.append(code) }
        push(.failure(FakeSocketError(message: "cancelled")))
    }

    var peerCloseCode: Int { state.withLock { $0.peerCode } }
    var peerCloseReason: String { state.withLock { $0.peerReason } }

    /// True once `resume()` was called.
    var resumed: Bool { state.withLock { $0.resumed } }
    /// How many pings were sent, answered or not.
    var pingCount: Int { state.withLock { $0.pingCount } }
    /// The codes the client closed with, nil for a plain cancel.
    var closes: [UInt16?] { state.withLock { $0.closes } }
    /// Frames the client sent.
    var sent: [SocketFrame] { state.withLock { $0.sent } }

    /// The server sends `frame`.
    func deliver(_ frame: SocketFrame) { push(.success(frame)) }

    /// The server answers the pings sent so far.
    func answerPings() {
        let pongs = state.withLock { state in
            defer { state.pings = [] }
            return state.pings
        }
        for pong in pongs { pong(nil) }
    }

    /// The connection ends: with the peer's close `code` and `reason`, or with 0 when it just died.
    func drop(code: Int = 0, reason: String = "") {
        state.withLock {
            $0.peerCode = code
            $0.peerReason = reason
        }
        push(.failure(FakeSocketError(message: "The network connection was lost.")))
    }

    private func push(_ item: Result<SocketFrame, FakeSocketError>) {
        let receiver = state.withLock { state -> CheckedContinuation<SocketFrame, any Error>? in
            guard let receiver = state.receiver else {
                state.pending.append(item)
                return nil
            }
            state.receiver = nil
            return receiver
        }
        receiver?.resume(with: item.mapError { $0 as any Error })
    }
}

struct FakeSocketError: Error, Sendable {
    let message: String
}
