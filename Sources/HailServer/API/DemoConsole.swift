import Foundation
import HailProtocol
import Synchronization

/// What the demo's city offers the console: a simulated rider's screen, and faults to press.
public protocol DemoControls: Sendable {
    /// What the simulated rider watching `tripID` sees now; nil when no simulated rider watches it.
    func riderView(tripID: String) async -> DemoRiderView?
    /// Presses `fault`; throws 404 when no simulated app of that trip is there to take it.
    func press(_ fault: DemoFault) async throws(APIError) -> DemoFaultAnswer
}

/// The demo's hooks on a server (`ServerConfiguration.demo`): set only by `hail demo`, which attaches its
/// city once the server is listening. A server without it answers the demo routes with 404, so a
/// production server never offers faults to press.
public final class DemoConsole: Sendable {
    private let controls = Mutex<(any DemoControls)?>(nil)

    /// A console with nothing attached yet.
    public init() {}

    /// Attaches the city.
    public func attach(_ controls: any DemoControls) { self.controls.withLock { $0 = controls } }

    var attached: (any DemoControls)? { controls.withLock { $0 } }
}
