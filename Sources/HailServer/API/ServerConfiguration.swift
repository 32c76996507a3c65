import Foundation

/// The settings an operator may change, with the brief's numbers as defaults.
public struct ServerConfiguration: Sendable {
    /// Largest request body accepted (larger: 413).
    public var maxBodyBytes = 1 << 20
    /// Largest WebSocket message accepted, all fragments together (larger: close 1009).
    public var maxMessageBytes = 1 << 20
    /// Seconds a client has to send a whole request, head and body, and the most a WebSocket handshake
    /// may take; slower ones (a request dribbled a byte at a time) are disconnected.
    public var requestTimeoutSeconds = 20
    /// The longest a request's answer may take once it is read: past it the answer is 503 `unavailable` with
    /// `Retry-After` (a backend is slow or silent) while the work runs on, bounded by each backend's timeout,
    /// and its result is dropped. `hail server` sets `defaultRequestDeadline` (`--request-deadline`); nil, for
    /// servers built in process (tests on a manual clock, whose real time is not the server's), means none.
    public var requestDeadline: Duration?
    /// `hail server`'s request deadline: under an app's own 10 s, so the app hears "retry" rather than nothing.
    public static let defaultRequestDeadline = Duration.seconds(4)
    /// `Retry-After` on a 503 `unavailable`, in seconds.
    public var unavailableRetryAfterSeconds = 2
    /// Request, connection and message rate limits (429 with `Retry-After`, close 4029); see docs/SECURITY.md.
    public var rateLimits = RateLimits()
    /// The bearer token Prometheus sends for `/metrics` (`hail server --metrics-token-file`); an operator's access
    /// token is accepted too, and no token never.
    public var metricsToken: String?
    /// The pickup ETA quoted in estimates when no driver is near.
    public var noDriverETASeconds = 600
    /// How long a share link works (it also stops when the trip ends).
    public var shareLinkLifetime: TimeInterval = 4 * 3600
    /// The base of URLs handed to clients (share links).
    public var publicBaseURL = URL(string: "http://localhost:8080")!
    /// Offer and search timeouts.
    public var dispatch = DispatchMachine.Configuration()
    /// Fleet tunables (silence timeout, nearby fuzz and cache).
    public var fleet = Fleet.Configuration()
    /// How often derived state is reconciled with the trip store, and when unpublished changes are redelivered.
    public var reconcile = Reconciler.Configuration()
    /// Fares by product.
    public var pricing = PricingTable.standard
    /// The road network routed on (loaded once when the services start); none means straight lines only.
    public var roads = RoadNetworkSetting.none
    /// The flags per cohort (route provider, live stream or poll, ETA source, location cap): none, or a flags
    /// file read at start and on every reload (`hail server --flags FILE`, SIGHUP; docs/DEPLOY.md).
    public var flags = FlagsSetting.none

    /// The push sender (APNs, from `hail server --apns-*`); nil for the signed webhook when
    /// `HAIL_PUSH_WEBHOOK_URL` and `HAIL_PUSH_WEBHOOK_SECRET` are set, or no pushes at all.
    public var pushSender: PushSenderFactory?

    /// Where the fleet page's Leaflet is served from (Debian's `libjs-leaflet` by default).
    public var leaflet = LeafletAssets()

    /// The demo's console hooks (a simulated rider's screen, faults to press); nil, the default, everywhere but
    /// `hail demo`: the demo routes are then 404.
    public var demo: DemoConsole?

    /// The defaults.
    public init() {}
}
