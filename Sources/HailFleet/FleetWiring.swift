import HailClient
import HailNetTransport
import HailTime

/// What every app of a fleet shares: one WebSocket connector and one HTTP exchange on HailNet's client sockets (a
/// waiting app costs no CPU, unlike URLSession's busy poll on Linux), and the machine's clock.
struct FleetWiring: Sendable {
    let connector: SocketConnector
    let exchange: NetHTTPExchange
    let timeline: Timeline
}
