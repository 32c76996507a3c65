import CLibWebSockets
import Foundation
import Synchronization

/// What one lws context is created with.
struct EventLoopOptions {
    /// Listening port, 0 for any free one, nil for a client-only context.
    var port: Int?
    /// Address to bind the listener to.
    var host: String = "127.0.0.1"
    /// Seconds between calls of the engine's keepalive sweep.
    var tickSeconds: Double = 5
    /// Bytes of WebSocket payload lws hands over per receive callback.
    var rxBufferSize: Int = 65_536
    /// Seconds an idle HTTP keep-alive connection stays open.
    var keepAliveSeconds: Int = 30
    /// Seconds lws allows each pending state (handshake, headers, body) before dropping the connection.
    var timeoutSeconds: Int = 20
}

/// The C-callable shape of every lws protocol callback, with the context's Swift handler behind it.
typealias LoopCallback = (CallbackArguments) -> Int32

/// The arguments of one lws callback, handed into the engine actor's synchronous isolation.
struct CallbackArguments: @unchecked Sendable {
    // @unchecked: built and consumed on the loop thread within one callback; the pointers are
    // only valid for that callback and never stored or sent elsewhere.
    let wsi: OpaquePointer
    let reason: lws_callback_reasons
    let input: UnsafeMutableRawPointer?
    let length: Int
}

/// Holds the Swift callback so the C trampoline can reach it through `lws_context_user`.
private final class CallbackBox {
    let executor: LoopExecutor
    let handle: LoopCallback

    /// The engine's periodic sweep, run on the loop thread.
    let tick: () -> Void

    init(executor: LoopExecutor, handle: @escaping LoopCallback, tick: @escaping () -> Void) {
        self.executor = executor
        self.handle = handle
        self.tick = tick
    }
}

/// The single protocol callback lws calls for every context HailNet creates.
private func trampoline(
    wsi: OpaquePointer?, reason: lws_callback_reasons, user: UnsafeMutableRawPointer?,
    input: UnsafeMutableRawPointer?, length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else { return 0 }
    let box = Unmanaged<CallbackBox>.fromOpaque(raw).takeUnretainedValue()
    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        box.executor.drain()
        return 0
    }
    return box.handle(CallbackArguments(wsi: wsi, reason: reason, input: input, length: length))
}

/// The C-callable tick: finds the box through its user pointer.
private func tickTrampoline(user: UnsafeMutableRawPointer?) {
    guard let user else { return }
    Unmanaged<CallbackBox>.fromOpaque(user).takeUnretainedValue().tick()
}

/// One lws context on its own libev loop, serviced by one thread it owns.
///
/// The context is created on the caller's thread (so `port` is known when `init` returns) and is
/// afterwards touched only by the loop thread; cross-thread work goes through `executor`.
final class EventLoop: @unchecked Sendable {
    // @unchecked: `context`, `loop` and the C allocations below are written once in `init` before the
    // loop thread starts (thread start orders them) and afterwards used only by that thread, except
    // `hail_loop_request_stop`, which libev documents as thread-safe, and `lws_cancel_service`, which
    // `LoopExecutor` calls under its own lock while the context is alive.
    let executor: LoopExecutor
    /// The context, for engines that must call lws functions needing it (client connects).
    var contextPointer: OpaquePointer { context }
    /// The port the listener is bound to (0 for a client context).
    let port: Int
    private let context: OpaquePointer
    private let loop: UnsafeMutablePointer<hail_loop_t>
    private let box: CallbackBox
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let hostName: UnsafeMutablePointer<CChar>?
    private let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var started = false
        var stopRequested = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private static let logLevelSet: Bool = {
        lws_set_log_level(Int32(LLL_ERR), nil)
        return true
    }()

    private let tickSeconds: Double

    /// Creates the context; `handle` gets every lws callback and `tick` runs every `options.tickSeconds`,
    /// both on the loop thread.
    init(
        options: EventLoopOptions, executor: LoopExecutor, handle: @escaping LoopCallback,
        tick: @escaping () -> Void
    ) throws {
        _ = Self.logLevelSet
        self.executor = executor
        tickSeconds = options.tickSeconds
        box = CallbackBox(executor: executor, handle: handle, tick: tick)
        guard let loop = hail_loop_new() else { throw NetError.contextCreation("libev could not create a loop") }
        self.loop = loop

        protocolName = strdup("hail")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        protocols[0].callback = trampoline
        protocols[0].rx_buffer_size = options.rxBufferSize

        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: hail_loop_ev(loop))

        var info = lws_context_creation_info()
        info.protocols = UnsafePointer(protocols)
        info.options = hail_lws_option_libev() | hail_lws_option_disable_ipv6() | hail_lws_option_validate_utf8()
        info.foreign_loops = foreignLoops
        info.user = Unmanaged.passUnretained(box).toOpaque()
        info.keepalive_timeout = Int32(options.keepAliveSeconds)
        info.max_http_header_data = 16_384
        info.timeout_secs = UInt32(max(1, options.timeoutSeconds))
        // The time a connection may hold a header table while its request head arrives (lws's default is
        // 10 s, whatever `timeout_secs` says): a head dribbled a byte at a time ends here.
        info.timeout_secs_ah_idle = UInt32(max(1, options.timeoutSeconds))
        // No retry_and_idle_policy: lws's own keepalive pings take the writable callback the user
        // asked for, which strands queued messages; HailNet pings from its tick instead.
        if let port = options.port {
            info.port = Int32(port)
            hostName = strdup(options.host)
            info.iface = UnsafePointer(hostName)
        } else {
            info.port = hail_lws_no_listen()
            info.options |= hail_lws_option_disable_os_ca_certs()
            hostName = nil
        }

        executor.beginCreation()
        guard let context = lws_create_context(&info) else {
            executor.loopStopping()
            executor.loopFinished()
            Self.free(
                loop: loop, protocols: protocols, name: protocolName, host: hostName,
                foreign: foreignLoops)
            throw NetError.contextCreation(
                options.port.map { "could not listen on \(options.host):\($0) (in use or not an address here)" }
                    ?? "libwebsockets refused to create a client context")
        }
        self.context = context
        if options.port != nil, let vhost = lws_get_vhost_by_name(context, "default") {
            port = Int(lws_get_vhost_listen_port(vhost))
        } else {
            port = 0
        }
    }

    private static func free(
        loop: UnsafeMutablePointer<hail_loop_t>, protocols: UnsafeMutablePointer<lws_protocols>,
        name: UnsafeMutablePointer<CChar>, host: UnsafeMutablePointer<CChar>?,
        foreign: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) {
        hail_loop_free(loop)
        protocols.deallocate()
        Foundation.free(name)
        Foundation.free(host)
        foreign.deallocate()
    }

    /// Starts the loop thread; lws callbacks run there from now on.
    func start() {
        let first = lifecycle.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        executor.endCreation()
        let thread = Thread { [self] in serve() }
        thread.name = "hail-lws"
        thread.start()
    }

    private func serve() {
        executor.loopStarted(context: context)
        hail_loop_start_tick(loop, tickSeconds, tickTrampoline, Unmanaged.passUnretained(box).toOpaque())
        // Stays in here until `requestStop`; lws does all socket work from libev callbacks.
        hail_loop_run(loop)
        // No more wake-ups may reach the context once it starts to go away.
        executor.loopStopping()
        lws_context_destroy(context)
        executor.loopFinished()
        Self.free(
            loop: loop, protocols: protocols, name: protocolName, host: hostName,
            foreign: foreignLoops)
        let waiters = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Makes the loop thread leave its loop, destroy the context (closing every connection) and end.
    func requestStop() {
        let action = lifecycle.withLock { state -> Int in
            if state.stopRequested { return 0 }
            state.stopRequested = true
            return state.started ? 1 : 2
        }
        switch action {
        case 1:
            hail_loop_request_stop(loop)
        case 2:
            // Never started: tear down here, the loop thread does not exist.
            executor.loopStopping()
            lws_context_destroy(context)
            executor.loopFinished()
            Self.free(
                loop: loop, protocols: protocols, name: protocolName, host: hostName,
                foreign: foreignLoops)
            let waiters = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.finished = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        default:
            break
        }
    }

    /// Returns once the loop thread has destroyed the context and ended.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lifecycle.withLock { state -> Bool in
                if state.finished { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// True once the loop has ended.
    var isFinished: Bool { lifecycle.withLock { $0.finished } }
}
