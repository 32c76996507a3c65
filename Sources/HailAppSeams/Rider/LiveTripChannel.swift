import HailProtocol

/// Opens a trip's live stream: `hello`, then `tripUpdated` and `driverMoved` frames in arrival order.
///
/// `RiderLiveChannel` in HailClient is the live one. Opening throws when the stream cannot be had at
/// all; the stream itself finishes or throws when the connection drops. Ending the iteration (the
/// consumer stops or is cancelled) must close the connection, which is how the rider saves battery.
public protocol LiveTripChannel: Sendable {
    /// Opens the stream of `tripID`, resuming after the driver position `seq` when given.
    func open(tripID: String, after seq: Int64?) async throws -> AsyncThrowingStream<RiderServerFrame, any Error>
    /// The same, telling the server the trip version the app shows, so it can count what a resync brings.
    func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
}

extension LiveTripChannel {
    /// Without the version: a channel written before it existed.
    public func open(tripID: String, after seq: Int64?, version: Int?) async throws
        -> AsyncThrowingStream<RiderServerFrame, any Error>
    {
        try await open(tripID: tripID, after: seq)
    }
}
