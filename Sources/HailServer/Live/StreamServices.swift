/// What every live stream's handler reaches the server through, made once and shared by reference.
///
/// `ServerServices` and `HailAPI` are structs of many stored fields (the configuration, the pricing table,
/// every store): a handler holding them by value carried over 5 KB of copies for each open stream, most of an
/// idle driver's server memory (`docs/BENCHMARKS.md`, "Idle streams under 8 KB"). One reference is 8 bytes.
final class StreamServices: Sendable {
    /// The server's services.
    let services: ServerServices
    /// The API, for the work a stream shares with REST (a scaled node's first batch).
    let api: HailAPI
    /// The driver streams open on this node, by driver.
    let drivers: DriverConnections
    /// The backend reads of opening driver streams, batched.
    let setUps: DriverSetUps
    /// The trips whose positions reached this node's watchers, while a drain watches for them.
    let sightings = PositionSightings()

    /// Shares `services`, `api` and `drivers` between the handlers of one server.
    init(services: ServerServices, api: HailAPI, drivers: DriverConnections) {
        self.services = services
        self.api = api
        self.drivers = drivers
        setUps = DriverSetUps(services: services)
    }
}
