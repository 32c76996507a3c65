import Foundation

/// How one client's network behaves: latency and jitter, lost requests and answers, a stream that
/// breaks, stalls or goes dead in a dead zone, frames duplicated or swapped.
///
/// Streams are TCP: a lost packet is retransmitted, so on a socket "loss" is a delay that holds back
/// every frame behind it; a request's loss is a timeout the app retries.
public struct NetworkProfile: Sendable, Hashable, Codable {
    /// The name, as on the command line.
    public var name: String
    /// Mean one-way latency, seconds.
    public var latency: Double = 0
    /// Latency varies uniformly by up to this much either way, seconds.
    public var jitter: Double = 0
    /// The chance a request never reaches the server (the app sees a timeout).
    public var requestLoss: Double = 0
    /// The chance the server handles a request but its answer is lost (the app sees a timeout).
    public var answerLoss: Double = 0
    /// Seconds a lost request or answer takes to time out.
    public var timeout: Double = 5
    /// The chance a stream frame waits for a retransmission, holding back the frames behind it.
    public var frameLoss: Double = 0
    /// The retransmission wait, seconds.
    public var retransmission: Double = 1
    /// The chance a frame is delivered twice.
    public var frameDuplication: Double = 0
    /// The chance a position frame is delivered after the frame that follows it.
    public var frameReordering: Double = 0
    /// Open streams break at this rate, per minute.
    public var dropsPerMinute: Double = 0
    /// Dead zones (no network at all) per hour, and how long each lasts.
    public var deadZonesPerHour: Double = 0
    /// Seconds a dead zone lasts.
    public var deadZoneSeconds: Double = 0
    /// Stalls (the socket stays open but delivers nothing) per hour.
    public var stallsPerHour: Double = 0
    /// Seconds a stall lasts; what was held arrives at once afterwards.
    public var stallSeconds: Double = 0
    /// App kills (and relaunches a few seconds later) per hour.
    public var appKillsPerHour: Double = 0
    /// A measured TCP link: when set, it decides every delay and loss, and `latency`, `jitter`, `requestLoss`,
    /// `answerLoss`, `frameLoss` and `retransmission` are not used.
    public var tcp: TCPLinkModel?

    /// A profile with nothing wrong, called `name`.
    public init(name: String) { self.name = name }

    /// Loopback as is: no faults.
    public static let perfect = NetworkProfile(name: "perfect")

    /// Good 4G: 40 ms ± 20 ms, a rare lost request or retransmitted frame.
    public static var good4G: NetworkProfile {
        var profile = NetworkProfile(name: "4g")
        profile.latency = 0.04
        profile.jitter = 0.02
        profile.requestLoss = 0.002
        profile.answerLoss = 0.001
        profile.frameLoss = 0.002
        profile.retransmission = 0.3
        return profile
    }

    /// Patchy 3G: 250 ms ± 200 ms, 3 % of requests and 2 % of answers lost, 3 % of frames retransmitted
    /// after a second. Sockets hold: breaks come with dead zones, stalls and `chaos`.
    public static var patchy3G: NetworkProfile {
        var profile = NetworkProfile(name: "3g")
        profile.latency = 0.25
        profile.jitter = 0.2
        profile.requestLoss = 0.03
        profile.answerLoss = 0.02
        profile.timeout = 5
        profile.frameLoss = 0.03
        profile.retransmission = 1
        return profile
    }

    /// Good 4G with dead zones: twelve a hour, 20 s each, where nothing gets through, and a socket that
    /// breaks by itself every five minutes.
    public static var deadZones: NetworkProfile {
        var profile = good4G
        profile.name = "dead-zones"
        profile.dropsPerMinute = 0.2
        profile.deadZonesPerHour = 12
        profile.deadZoneSeconds = 20
        return profile
    }

    /// Good 4G with a socket that stalls: twelve times a hour it delivers nothing for 12 s, then all of it.
    public static var stallingSocket: NetworkProfile {
        var profile = good4G
        profile.name = "stalls"
        profile.stallsPerHour = 12
        profile.stallSeconds = 12
        return profile
    }

    /// Everything at once: patchy 3G, dead zones, stalls, duplicated and swapped frames, app kills.
    public static var chaos: NetworkProfile {
        var profile = patchy3G
        profile.name = "chaos"
        profile.deadZonesPerHour = 12
        profile.deadZoneSeconds = 15
        profile.stallsPerHour = 12
        profile.stallSeconds = 8
        profile.frameDuplication = 0.02
        profile.frameReordering = 0.02
        profile.appKillsPerHour = 6
        profile.dropsPerMinute = 0.5
        return profile
    }

    /// Cellular as Uber measured it on its riders' phones (`TCPLinkModel.uber2019`, from Uber Engineering,
    /// "Employing QUIC Protocol to Optimize Uber's App Performance", 2019): round trips p50/p99 350 ms / 2.3 s,
    /// 45 % of connections lossy at 3.5 %, each loss a retransmission wait of 1 s (p50) to 28 s (p99) that holds
    /// back the stream behind it. A request times out after the apps' own 10 s (`HTTPTransport`). The same for
    /// drivers and riders; sockets break only when a wait outlasts an app's patience.
    public static var cellular: NetworkProfile {
        var profile = NetworkProfile(name: "cellular")
        profile.tcp = .uber2019
        profile.timeout = 10
        return profile
    }

    /// Every named profile.
    public static var all: [NetworkProfile] {
        [perfect, good4G, patchy3G, deadZones, stallingSocket, chaos, cellular]
    }

    /// The profile called `name`, nil for an unknown name.
    public static func named(_ name: String) -> NetworkProfile? { all.first { $0.name == name } }
}
