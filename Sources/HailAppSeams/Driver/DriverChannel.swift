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
}
