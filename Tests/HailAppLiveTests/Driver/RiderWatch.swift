import Foundation
import HailClient
import HailCore
import HailProtocol
import Synchronization

/// The rider's car as the server moves it: every `driverMoved` on the trip's live stream.
final class RiderWatch: Sendable {
    private let moves = Mutex<[DriverMoved]>([])
    private let socket: LiveSocket
    /// Every move as it arrives, for waiting on one.
    let stream: AsyncStream<DriverMoved>

    init(loopback: DriverLoopback, connector: SocketConnector, tripID: String, token: String) async throws {
        let url = "ws://127.0.0.1:\(loopback.server.port)\(Routes.live(tripID: tripID))"
        socket = try await connector.connect(url, token: token)
        let frames = socket.frames
        let (stream, continuation) = AsyncStream.makeStream(of: DriverMoved.self)
        self.stream = stream
        Task { [self] in
            for await frame in frames {
                guard case .text(let text) = frame,
                    case .driverMoved(let moved)? = try? HailJSON.decode(RiderServerFrame.self, from: Data(text.utf8))
                else { continue }
                moves.withLock { $0.append(moved) }
                continuation.yield(moved)
            }
            continuation.finish()
        }
    }

    var seen: [DriverMoved] { moves.withLock { $0 } }

    func close() { socket.close() }
}
