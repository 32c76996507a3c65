import HailCore
import HailProtocol

/// The driver stream `/v1/drivers/me/live`: one connection at a time, batches up, frames down.
public protocol DriverChannel: Sendable {
    /// Opens a connection (closing any older one); the frames finish when it closes.
    func connect() async throws -> AsyncStream<DriverServerFrame>
    /// Sends a batch on the open connection; throws when there is none or it is closing.
    func send(_ batch: LocationBatch) async throws
    /// Closes the open connection, if any.
    func disconnect() async
    /// The close code the server ended the last connection with, once its frames have finished; nil when it
    /// dropped without one or the app closed it. `WebSocketCloseCode.shouldReconnect` says whether to reconnect.
    func lastServerClose() async -> UInt16?
}

extension DriverChannel {
    /// A channel that cannot tell: every end is a drop, reconnected after the backoff.
    public func lastServerClose() async -> UInt16? { nil }
}
