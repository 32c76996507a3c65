import Foundation

/// What an app over TCP sees on a measured network: each request's and frame's delay drawn from a round-trip
/// distribution, connections that are lossy or not, and on a lossy one each packet lost now and then, which TCP
/// turns into a retransmission wait drawn from its own distribution while every frame behind it on the stream
/// waits too (head-of-line blocking).
public struct TCPLinkModel: Sendable, Hashable, Codable {
    /// Round trips, seconds; a frame's one-way trip is half of a draw.
    public var roundTrip: QuantileCurve
    /// The share of connections that lose packets at all.
    public var lossyConnectionShare: Double
    /// The chance each packet (a request, an answer, a stream frame) is lost on a lossy connection.
    public var lossOnLossyConnection: Double
    /// How long TCP takes to deliver a lost packet after all, seconds.
    public var retransmission: QuantileCurve
    /// The chance a lossy connection loses a packet of its handshake, which then waits for a retransmission.
    public var handshakeLossOnLossyConnection: Double

    /// A model from its four parts.
    public init(
        roundTrip: QuantileCurve, lossyConnectionShare: Double, lossOnLossyConnection: Double,
        retransmission: QuantileCurve, handshakeLossOnLossyConnection: Double
    ) {
        self.roundTrip = roundTrip
        self.lossyConnectionShare = lossyConnectionShare
        self.lossOnLossyConnection = lossOnLossyConnection
        self.retransmission = retransmission
        self.handshakeLossOnLossyConnection = handshakeLossOnLossyConnection
    }

    /// Uber's riders' phones in 2019, as measured over TCP before its move to QUIC: Uber Engineering, "Employing
    /// QUIC Protocol to Optimize Uber's App Performance" (2019,
    /// https://www.uber.com/blog/employing-quic-protocol/). Round trips p50/p75/p95/p99 350 / 425 / 725 /
    /// 2,300 ms; loss about 3.5 % on lossy connections (7 % in congested areas: `congested`); 45 % of TCP
    /// connections with at least one loss, 30 % of those during the connection's establishment; TCP
    /// retransmission delays p50/p75/p95/p99 1 / 2.8 / 15 / 28 s.
    /// A long-lived stream on a lossy connection carries hundreds of frames, so nearly every lossy one loses
    /// at least one: the share of lossy connections is the published 45 %.
    public static let uber2019 = TCPLinkModel(
        roundTrip: QuantileCurve(quantiles: [
            .init(0.5, 0.35), .init(0.75, 0.425), .init(0.95, 0.725), .init(0.99, 2.3),
        ]),
        lossyConnectionShare: 0.45, lossOnLossyConnection: 0.035,
        retransmission: QuantileCurve(quantiles: [.init(0.5, 1), .init(0.75, 2.8), .init(0.95, 15), .init(0.99, 28)]),
        handshakeLossOnLossyConnection: 0.3)

    /// The same in the congested areas of that measurement: 7 % of packets lost on a lossy connection.
    public static var congested: TCPLinkModel {
        var model = uber2019
        model.lossOnLossyConnection = 0.07
        return model
    }
}
