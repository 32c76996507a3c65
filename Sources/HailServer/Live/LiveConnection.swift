import Foundation

/// A message a client sent on a stream.
public enum LiveInbound: Sendable, Hashable {
    /// A text frame (JSON).
    case text(String)
    /// A binary frame (the compact location batch).
    case binary(Data)
}

/// One accepted WebSocket, as the streams see it: HailNet's connection in the server, a pair of
/// in-memory queues in unit tests.
public protocol LiveConnection: AnyObject, Sendable {
    /// What the client sends, until it closes.
    var inbound: AsyncStream<LiveInbound> { get }
    /// Queues a frame; a `.disposable` one may be dropped for a newer one if the client reads slowly,
    /// an `.essential` one never is (the connection is closed instead).
    func send(_ message: BusMessage) async
    /// Closes with a WebSocket close code and a reason of at most 123 bytes.
    func close(code: UInt16, reason: String) async
}
