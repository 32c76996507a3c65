import Foundation

/// What a drain acts on: the node (`BackendServer`), or a test's stand-in.
public protocol DrainTarget: Sendable {
    /// `/readyz` answers 503 `draining` from now on.
    func markUnready()
    /// Closes the listeners and returns the WebSockets open afterwards, drivers' and watchers'.
    func stopAccepting() async -> DrainStreams
    /// Closes these WebSockets with 4012 (those already gone are skipped).
    func closeStreams(_ ids: [UInt64]) async
    /// Closes every WebSocket still open with 4012.
    func closeRemainingStreams() async
    /// WebSockets and HTTP requests still open.
    func openWork() async -> (streams: Int, requests: Int)
    /// Returns once the acknowledged work is out: pending history commits, pushes, publications marked.
    func flush() async
    /// The trips whose positions reached the node's watchers since the last call (from `stopAccepting` on), each
    /// with the latest arrival: the evidence that a moved driver streams again elsewhere.
    func positionsSeen() async -> [String: Date]
}

extension DrainTarget {
    /// No evidence: watchers keep their slots after the handover.
    public func positionsSeen() async -> [String: Date] { [:] }
}
