/// An engine actor isolated to one lws loop (the server's or the client's): its connections reach it through
/// `control(for:)`.
protocol LoopEngine: Actor {
    /// The loop the engine runs on.
    nonisolated var executor: LoopExecutor { get }
    /// Does what connection `id` asked, on the loop.
    func carryOut(_ request: ConnectionControl, for id: UInt64)
}

extension LoopEngine {
    /// The connections' way to the loop: carried out at once on the loop thread (a handler answering in its
    /// receive callback), posted from anywhere else.
    ///
    /// The cycle connection -> closure -> engine -> session -> connection ends when lws destroys the wsi.
    static func control(for engine: Self) -> @Sendable (UInt64, ConnectionControl) -> Void {
        let executor = engine.executor
        return { id, request in
            if executor.isOnLoopThread {
                engine.assumeIsolated { $0.carryOut(request, for: id) }
            } else {
                executor.post { engine.assumeIsolated { $0.carryOut(request, for: id) } }
            }
        }
    }
}
