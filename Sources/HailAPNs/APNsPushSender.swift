import Foundation
import HailCore
import HailProtocol
import HailServer
import HailTime

/// Pushes straight to APNs: the rider's alert to their device token and the trip's Live Activity update to
/// its activity token, over one HTTP/2 connection per APNs host, authorised by an ES256 provider token.
///
/// The decisions are pure and tested on their own (`APNsProviderToken`, `APNsAnswer`, `APNsRequest`); this
/// actor carries them out: it signs, sends, forgets dead tokens, renews an expired provider token and retries
/// once, and backs off on the server's clock for 429 and 5xx. It runs in the notifier's delivery loop, off the
/// commit path, and never throws for a push APNs refused: each outcome is counted in `hail_push_total`.
public actor APNsPushSender: PushSender {
    /// Where and as whom to push.
    public struct Configuration: Sendable {
        /// Apple's production host.
        public static let productionHost = "api.push.apple.com"
        /// Apple's host for development builds.
        public static let sandboxHost = "api.sandbox.push.apple.com"

        /// The team's auth key.
        public var key: APNsSigningKey
        /// The key's id (`kid`), ten characters.
        public var keyID: String
        /// The team id (`iss`), ten characters.
        public var teamID: String
        /// The app's bundle id, the `apns-topic` for devices that registered none.
        public var topic: String
        /// `host[:port]` for every push instead of Apple's hosts (a stand-in in tests).
        public var host: String?
        /// A PEM file of certificates to trust instead of the system's (a stand-in's own).
        public var caFile: String?

        /// Creates a configuration.
        public init(
            key: APNsSigningKey, keyID: String, teamID: String, topic: String, host: String? = nil,
            caFile: String? = nil
        ) {
            self.key = key
            self.keyID = keyID
            self.teamID = teamID
            self.topic = topic
            self.host = host
            self.caFile = caFile
        }

        /// The host for a token of `environment`.
        public func host(for environment: PushEnvironment) -> String {
            host ?? (environment == .production ? Self.productionHost : Self.sandboxHost)
        }
    }

    /// What the connection did, for tests and logs.
    public struct Statistics: Sendable, Hashable {
        /// Requests sent.
        public var requests = 0
        /// TCP+TLS connections opened; one per host while APNs keeps it open.
        public var connectionsOpened = 0
        /// Exchanges that did not speak HTTP/2 (always 0 against APNs).
        public var notHTTP2 = 0

        /// Creates statistics.
        public init(requests: Int = 0, connectionsOpened: Int = 0, notHTTP2: Int = 0) {
            self.requests = requests
            self.connectionsOpened = connectionsOpened
            self.notHTTP2 = notHTTP2
        }
    }

    private let configuration: Configuration
    private let tokens: any PushTokenStore
    private let metrics: ServerMetrics
    private let time: Timeline
    private let log: (@Sendable (String) -> Void)?
    private let client: CurlHTTP2Client
    private var providerToken = APNsProviderToken()
    private var signed: (issuedAt: Date, jwt: String)?
    /// What the connection did so far.
    public private(set) var statistics = Statistics()

    /// A sender reading tokens from `tokens`, counting in `metrics`, waiting on `time`.
    public init(
        configuration: Configuration, tokens: any PushTokenStore, metrics: ServerMetrics, time: Timeline,
        log: (@Sendable (String) -> Void)? = { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) }
    ) {
        self.configuration = configuration
        self.tokens = tokens
        self.metrics = metrics
        self.time = time
        self.log = log
        client = CurlHTTP2Client(caFile: configuration.caFile)
    }

    /// The factory `ServerConfiguration.pushSender` takes, so the server builds the sender on its own stores.
    public static func factory(
        _ configuration: Configuration,
        log: (@Sendable (String) -> Void)? = { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) }
    ) -> PushSenderFactory {
        { context in
            APNsPushSender(
                configuration: configuration, tokens: context.tokens, metrics: context.metrics, time: context.time,
                log: log)
        }
    }

    /// Sends the alert to the rider's device and the update to the trip's Live Activity, each if registered;
    /// forgets the activity's token once its `end` went out.
    public func send(_ delivery: PushDelivery) async throws {
        let device = try await tokens.device(principal: "rider:\(delivery.riderID)")
        let bundleID = device?.bundleID ?? configuration.topic
        if let device, let alert = delivery.alert {
            await push(
                alert, type: "alert", token: device.token, environment: device.environment,
                bundleID: bundleID)
        }
        guard let activity = try await tokens.liveActivity(tripID: delivery.tripID) else { return }
        // An activity's token comes from the same app build as the device's, so it lives on the same APNs.
        await push(
            delivery.liveActivity, type: "liveactivity", token: activity.token,
            environment: device?.environment ?? .production, bundleID: bundleID)
        if delivery.event.endsActivity { try await tokens.removeLiveActivity(tripID: delivery.tripID) }
    }

    private func push<Payload>(
        _ request: PushDelivery.Request<Payload>, type: String, token: String, environment: PushEnvironment,
        bundleID: String
    ) async {
        var attempt = 1
        var renewed = false
        var decision = providerToken.forRequest(now: time.now())
        while true {
            let action: APNsAction
            do {
                let apns = try APNsRequest(request, token: token, bundleID: bundleID, jwt: try jwt(for: decision))
                let answer = try await client.post(
                    url: "https://\(configuration.host(for: environment))\(apns.path)", headers: apns.headers,
                    body: apns.body)
                statistics.requests += 1
                statistics.connectionsOpened += answer.newConnections
                if !answer.http2 { statistics.notHTTP2 += 1 }
                action = APNsAnswer.action(
                    status: answer.status, reason: APNsAnswer.reason(fromBody: answer.body), attempt: attempt,
                    renewedProviderToken: renewed)
            } catch let error as APNsKeyError {
                action = .giveUp(reason: error.message)
            } catch {
                log?("apns: \(type) push to \(token.prefix(8))… got no answer: \(error)")
                action = APNsAnswer.action(status: 0, reason: nil, attempt: attempt, renewedProviderToken: renewed)
            }
            switch action {
            case .delivered:
                metrics.push(type: type, result: APNsAnswer.result(of: action))
                return
            case .forgetToken(let reason):
                metrics.push(type: type, result: APNsAnswer.result(of: action))
                log?("apns: forgetting \(type) token \(token.prefix(8))…: \(reason)")
                try? await tokens.removePushToken(token)
                return
            case .renewProviderTokenAndRetry:
                guard let renewal = providerToken.renewAfterExpiry(now: time.now()) else {
                    // Renewed less than 20 minutes ago: another renewal would be refused, so this push is lost.
                    metrics.push(type: type, result: "failed")
                    log?("apns: ExpiredProviderToken for a token under 20 minutes old; is the server's clock right?")
                    return
                }
                metrics.push(type: type, result: APNsAnswer.result(of: action))
                renewed = true
                decision = renewal
            case .retry(let delay):
                metrics.push(type: type, result: APNsAnswer.result(of: action))
                try? await time.sleep(for: .milliseconds(Int64((delay * 1000).rounded())))
                attempt += 1
                decision = providerToken.forRequest(now: time.now())
            case .giveUp(let reason):
                metrics.push(type: type, result: APNsAnswer.result(of: action))
                log?("apns: \(type) push to \(token.prefix(8))… failed: \(reason)")
                return
            }
        }
    }

    private func jwt(for decision: APNsProviderToken.Decision) throws(APNsKeyError) -> String {
        let issuedAt: Date
        switch decision {
        case .reuse(let at): issuedAt = at
        case .issue(let at): issuedAt = at
        }
        if let signed, signed.issuedAt == issuedAt { return signed.jwt }
        let jwt = try configuration.key.providerToken(
            keyID: configuration.keyID, teamID: configuration.teamID, issuedAt: issuedAt)
        signed = (issuedAt, jwt)
        return jwt
    }
}
