import HailTime

/// Delivers one push; throws when it was not accepted, so the notifier can retry it.
public protocol PushSender: Sendable {
    /// Hands `delivery` to whatever talks to APNs.
    func send(_ delivery: PushDelivery) async throws
}

/// What a push sender the server builds may use: the token store, the metrics and the server's clock.
public struct PushContext: Sendable {
    /// Device and Live Activity tokens.
    public let tokens: any PushTokenStore
    /// The server's metrics (`hail_push_total`).
    public let metrics: ServerMetrics
    /// The server's clock, for backoff.
    public let time: Timeline

    /// Creates a context.
    public init(tokens: any PushTokenStore, metrics: ServerMetrics, time: Timeline) {
        self.tokens = tokens
        self.metrics = metrics
        self.time = time
    }
}

/// Builds the server's push sender once its stores exist (`ServerConfiguration.pushSender`).
public typealias PushSenderFactory = @Sendable (PushContext) -> any PushSender
