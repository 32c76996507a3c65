/// Delivers one push; throws when it was not accepted, so the notifier can retry it.
public protocol PushSender: Sendable {
    /// Hands `delivery` to whatever talks to APNs.
    func send(_ delivery: PushDelivery) async throws
}
