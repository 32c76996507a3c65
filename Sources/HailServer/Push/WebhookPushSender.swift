import Foundation
import HailNet
import HailProtocol
import HailThreads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts each delivery as JSON to a webhook, signed so the receiver knows it came from this server.
///
/// The header is `Hail-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the time is
/// inside the MAC so a captured request cannot be replayed later, and the receiver should refuse a `t`
/// more than a few minutes old. Any 2xx is success; anything else throws and is retried.
public struct WebhookPushSender: PushSender {
    /// The header carrying the signature.
    public static let signatureHeader = "hail-signature"

    /// Where deliveries are posted.
    public let url: URL
    private let secret: [UInt8]
    private let now: @Sendable () -> Date
    private let session: URLSession

    /// Creates a sender; `secret` is shared with the receiver.
    public init(
        url: URL, secret: [UInt8], now: @escaping @Sendable () -> Date = { Date() }, session: URLSession = .shared
    ) {
        self.url = url
        self.secret = secret
        self.now = now
        self.session = session
    }

    /// The `Hail-Signature` value for `body` sent at `time`.
    public static func signature(body: [UInt8], secret: [UInt8], time: Date) -> String {
        let stamp = String(Int64(time.timeIntervalSince1970.rounded(.down)))
        let mac = HMAC.sha256(key: secret, message: Array((stamp + ".").utf8) + body)
        return "t=\(stamp),v1=\(HMAC.hex(mac))"
    }

    /// True when `header` is a valid signature of `body` no older than `tolerance` seconds at `now`.
    public static func verify(
        header: String, body: [UInt8], secret: [UInt8], now: Date, tolerance: TimeInterval = 300
    ) -> Bool {
        var stamp: String?
        var mac: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { stamp = String(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { mac = String(part.dropFirst(3)) }
        }
        guard let stamp, let seconds = Int64(stamp), let mac else { return false }
        guard abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let expected = HMAC.hex(HMAC.sha256(key: secret, message: Array((stamp + ".").utf8) + body))
        return HMAC.equal(Array(expected.utf8), Array(mac.utf8))
    }

    /// Posts `delivery`.
    public func send(_ delivery: PushDelivery) async throws {
        let body = try HailJSON.encode(delivery)
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue(HailMediaType.json, forHTTPHeaderField: "Content-Type")
        request.setValue(
            Self.signature(body: Array(body), secret: secret, time: now()), forHTTPHeaderField: Self.signatureHeader)
        #if canImport(FoundationNetworking)
            let (_, response) = try await session.dataRunningToCompletion(for: request)
        #else
            let (_, response) = try await session.data(for: request)
        #endif
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else { throw WebhookError(status: status) }
    }
}

/// The webhook answered with something other than 2xx.
public struct WebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status it answered.
    public let status: Int

    /// `push webhook answered 503`.
    public var description: String { "push webhook answered \(status)" }
}
