import CLibWebSockets
import Foundation
import HailTime
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What one lws context is created with.
struct EventLoopOptions {
    /// Listening port, 0 for any free one, nil for a client-only context.
    var port: Int?
    /// For a server context, whether this loop holds the server's listening socket and accepts on it (one loop
    /// of a server does; the others only adopt what it hands them, `EventLoop.adopt`).
    var listens = true
    /// Address to bind the listener to.
    var host: String = "127.0.0.1"
    /// Seconds between calls of the engine's keepalive sweep.
    var tickSeconds: Double = 5
    /// Bytes of WebSocket payload lws hands over per receive callback: lws allocates this much for every
    /// WebSocket, so it is small (an idle stream holds little); a larger message arrives in fragments,
    /// which HailNet assembles in a buffer that exists only while that message does.
    var rxBufferSize: Int = 512
    /// The name of the loop thread.
    var threadName = "hail-lws"
    /// Seconds an idle HTTP keep-alive connection stays open.
    var keepAliveSeconds: Int = 30
    /// Seconds lws allows each pending state (handshake, headers, body) before dropping the connection.
    var timeoutSeconds: Int = 20
    /// Seconds a busy loop gathers readiness before it polls again (0: poll at once); see
    /// `NetServerConfiguration.ioCoalescing`.
    var ioCollectSeconds: Double = 0
    /// Connections the loop holds before it gathers (`ioCollectSeconds`); 0 gathers from the start. The count comes
    /// from `connectionsChanged(to:)`.
    var ioCollectFromConnections = 0
    /// The processor the loop thread runs on; nil lets the scheduler choose.
    var cpu: Int?
    /// For a client context, the certificates its wss:// connections trust (nil: ws:// only, no TLS set up).
    var clientTrust: WebSocketTrust?

    /// The processor loop `index` of a process runs on when loops are pinned: the `index % n`-th of the n processors
    /// this process may use (its affinity mask, which a container or `taskset` may narrow), or nil when that cannot
    /// be read.
    static func core(forLoop index: Int) -> Int? {
        let cpus = ProcessorAffinity.allowed
        return cpus.isEmpty ? nil : cpus[index % cpus.count]
    }
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

    /// The server vhost accepted connections are handed to (nil for a client context).
    var vhost: OpaquePointer?

    /// Decides where each connection this loop's listener accepts goes (`EventLoop.onAccept`); nil adopts it here.
    var accepted: ((Int32) -> Void)?

    /// The repeating tasks armed on this loop, by the id `EventLoop.scheduleRepeated` gave them; loop thread only.
    var repeating: [UInt64: RepeatingTask] = [:]

    init(executor: LoopExecutor, handle: @escaping LoopCallback, tick: @escaping () -> Void) {
        self.executor = executor
        self.handle = handle
        self.tick = tick
    }
}

/// The C-callable accept: hands a connection accepted on HailNet's own listener to lws, as if lws's
/// listener had accepted it.
private func acceptTrampoline(user: UnsafeMutableRawPointer?, fd: Int32) {
    guard let user else {
        close(fd)
        return
    }
    let box = Unmanaged<CallbackBox>.fromOpaque(user).takeUnretainedValue()
    // Before lws sees it: adoption skips the socket options lws gives what its own listener accepts.
    TCPNoDelay.enable(on: fd)
    if let accepted = box.accepted {
        accepted(fd)
    } else {
        _ = adopt(fd, box)
    }
}

/// Hands an accepted socket to the loop's lws vhost; false when it was not adopted, and then the socket is closed
/// already: lws closes one it refuses, so closing it again here could close a descriptor another thread of the
/// process has just been given (its socket, its file) under the same number.
private func adopt(_ fd: Int32, _ box: CallbackBox) -> Bool {
    guard let vhost = box.vhost else {
        close(fd)
        return false
    }
    return lws_adopt_socket_vhost(vhost, fd) != nil
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

/// A body run on the loop thread every interval until it returns false or the loop stops.
final class RepeatingTask {
    let id: UInt64
    let body: @Sendable () -> Bool
    /// The libev timer, while armed.
    var timer: UnsafeMutablePointer<hail_timer_t>?
    /// A fire has been posted to the executor and has not run yet (a slow body never piles up fires).
    var firePending = false
    /// The loop the task runs on; unowned because the loop outlives every task it holds.
    unowned let loop: EventLoop

    init(id: UInt64, loop: EventLoop, body: @escaping @Sendable () -> Bool) {
        self.id = id
        self.loop = loop
        self.body = body
    }
}

/// The C-callable fire of a repeating task's timer: runs its body through the executor, inside lws's service,
/// where lws re-arms its own timers (a body that sends may make lws schedule a close timeout).
private func repeatingTrampoline(user: UnsafeMutableRawPointer?) {
    guard let user else { return }
    let task = Unmanaged<RepeatingTask>.fromOpaque(user).takeUnretainedValue()
    guard !task.firePending else { return }
    task.firePending = true
    task.loop.fire(taskID: task.id)
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
    /// HailNet's listening socket, on the one loop of a server that accepts (`EventLoopOptions.listens`); -1 on
    /// the server's other loops and for a client context.
    private let listener: Int32
    private let lifecycle = Mutex(Lifecycle())

    private struct Lifecycle {
        var started = false
        var stopRequested = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// lws's retry and idle policy with its validity timers off (no pings of its own, no hangup).
    nonisolated(unsafe) static let noValidityChecks: UnsafeMutablePointer<lws_retry_bo_t> = {
        // nonisolated(unsafe): written once here, before any context exists, and only read by lws afterwards.
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(to: lws_retry_bo_t())
        return policy
    }()

    private static let logLevelSet: Bool = {
        lws_set_log_level(Int32(LLL_ERR), nil)
        return true
    }()

    private let tickSeconds: Double
    private let ioCollectSeconds: Double
    private let ioCollectFromConnections: Int
    /// Whether the loop gathers now; read and written on the loop thread only (like `context`).
    private var collectsIO = false
    private let cpu: Int?
    /// Ids for `scheduleRepeated`.
    private let nextTaskID = Atomic<UInt64>(1)
    /// The loop thread's name (`hail-lws`, `hail-lws-1`, ... for a server's loops).
    let threadName: String

    /// Creates the context; `handle` gets every lws callback and `tick` runs every `options.tickSeconds`,
    /// both on the loop thread.
    init(
        options: EventLoopOptions, executor: LoopExecutor, handle: @escaping LoopCallback,
        tick: @escaping () -> Void
    ) throws {
        _ = Self.logLevelSet
        self.executor = executor
        tickSeconds = options.tickSeconds
        ioCollectSeconds = max(0, options.ioCollectSeconds)
        ioCollectFromConnections = max(0, options.ioCollectFromConnections)
        cpu = options.cpu
        threadName = options.threadName
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
        info.options =
            hail_lws_option_libev() | hail_lws_option_disable_ipv6() | hail_lws_option_validate_utf8()
            | hail_lws_option_fallback_on_unknown_method()
        info.foreign_loops = foreignLoops
        info.user = Unmanaged.passUnretained(box).toOpaque()
        info.keepalive_timeout = Int32(options.keepAliveSeconds)
        info.max_http_header_data = 16_384
        info.timeout_secs = UInt32(max(1, options.timeoutSeconds))
        // The time a connection may hold a header table while its request head arrives (lws's default is
        // 10 s, whatever `timeout_secs` says): a head dribbled a byte at a time ends here.
        info.timeout_secs_ah_idle = UInt32(max(1, options.timeoutSeconds))
        // A policy that turns lws's own validity checks off: its keepalive pings take the writable callback the
        // user asked for, which strands queued messages (HailNet pings from its tick instead), and without a
        // policy lws falls back to a default one whose timer it re-arms on every message received, an
        // insertion into one sorted list of every connection's timer: O(connections) per message.
        info.retry_and_idle_policy = UnsafePointer(Self.noValidityChecks)
        if options.port != nil {
            info.port = hail_lws_no_listen_server()
            hostName = strdup(options.host)
            info.iface = UnsafePointer(hostName)
        } else {
            info.port = hail_lws_no_listen()
            hostName = nil
        }
        // The client TLS context is made while the context is created: lws reads the CA file then, not later.
        let caFile: UnsafeMutablePointer<CChar>?
        switch options.clientTrust {
        case nil where options.port == nil:
            info.options |= hail_lws_option_disable_os_ca_certs()
            caFile = nil
        case .caFile(let path)?:
            info.options |= hail_lws_option_ssl_global_init() | hail_lws_option_disable_os_ca_certs()
            caFile = strdup(path)
            info.client_ssl_ca_filepath = UnsafePointer(caFile)
        case .system?:
            info.options |= hail_lws_option_ssl_global_init()
            caFile = nil
        case nil:
            caFile = nil
        }
        defer { Glibc.free(caFile) }

        var listener: Int32 = -1
        var boundPort = options.port ?? 0
        if let port = options.port, options.listens {
            do {
                (listener, boundPort) = try Self.listen(host: options.host, port: port)
            } catch {
                Self.free(
                    loop: loop, protocols: protocols, name: protocolName, host: hostName, foreign: foreignLoops)
                throw error
            }
        }
        self.listener = listener
        executor.beginCreation()
        guard let context = lws_create_context(&info) else {
            if listener >= 0 { close(listener) }
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
        box.vhost = lws_get_vhost_by_name(context, "default")
        port = boundPort
    }

    /// A non-blocking listening socket on `host:port` (0: a free port), and its port. One per server: its port is
    /// shared with no other socket, so the bind is also the check that no other server listens there.
    private static func listen(host: String, port: Int) throws -> (Int32, Int) {
        let fd = try bound(host: host, port: port)
        guard Glibc.listen(fd, 4_096) == 0 else {
            close(fd)
            throw NetError.contextCreation("could not listen on \(host):\(port) (in use or not an address here)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// A non-blocking TCP socket bound to `host:port`, with SO_REUSEADDR (TIME_WAIT leftovers of an earlier run
    /// must not block a restart) and without SO_REUSEPORT, so a port another server listens on is an error.
    static func bound(host: String, port: Int) throws -> Int32 {
        let failure = NetError.contextCreation("could not listen on \(host):\(port) (in use or not an address here)")
        let fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure }
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw failure
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw failure
        }
        return fd
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
        thread.name = threadName
        thread.start()
    }

    private func serve() {
        // Foundation's `Thread.name` does not reach the kernel on Linux: named here, the loop shows in `top -H`,
        // `perf` and /proc/PID/task/*/comm (`hail bench edge` reads each loop's CPU there). 15 bytes at most.
        _ = hail_name_current_thread(threadName)
        // A processor refused (gone offline since) leaves the loop to the scheduler, as if unpinned.
        if let cpu { _ = hail_pin_current_thread(Int32(cpu)) }
        executor.loopStarted(context: context)
        connectionsChanged(to: 0)
        hail_loop_start_tick(loop, tickSeconds, tickTrampoline, Unmanaged.passUnretained(box).toOpaque())
        if listener >= 0 {
            hail_loop_listen(loop, listener, acceptTrampoline, Unmanaged.passUnretained(box).toOpaque())
        }
        // Stays in here until `requestStop`; lws does all socket work from libev callbacks.
        hail_loop_run(loop)
        // The placement closure holds every loop of the server (this one included): let go of them.
        box.accepted = nil
        for task in box.repeating.values { disarm(task) }
        box.repeating = [:]
        if listener >= 0 { close(listener) }
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

    /// Runs `body` on the loop thread every `interval` (the first time after one interval) until it returns false
    /// or the loop stops; callable from any thread. A body that falls behind is not run twice in a row to catch
    /// up: it should work out for itself what is due (swift-nio's `scheduleRepeatedTask` with a fixed delay).
    func scheduleRepeated(every interval: Duration, _ body: @escaping @Sendable () -> Bool) {
        let id = nextTaskID.wrappingAdd(1, ordering: .relaxed).oldValue
        let seconds = max(0.000_1, interval.timeInterval)
        executor.post { [self] in arm(id: id, seconds: seconds, body: body) }
    }

    /// Arms a repeating task's timer; loop thread only (a post, so the loop is running or draining its last jobs).
    private func arm(id: UInt64, seconds: Double, body: @escaping @Sendable () -> Bool) {
        guard executor.isOnLoopThread, !isFinished, lifecycle.withLock({ !$0.stopRequested }) else { return }
        let task = RepeatingTask(id: id, loop: self, body: body)
        guard
            let timer = hail_loop_timer_start(
                loop, seconds, repeatingTrampoline, Unmanaged.passUnretained(task).toOpaque())
        else { return }
        task.timer = timer
        box.repeating[id] = task
    }

    /// Runs a repeating task's body on the loop, inside lws's service; a body that says stop is disarmed.
    fileprivate func fire(taskID: UInt64) {
        executor.post { [self] in
            guard let task = box.repeating[taskID] else { return }
            task.firePending = false
            if !task.body() {
                disarm(task)
                box.repeating[taskID] = nil
            }
        }
    }

    private func disarm(_ task: RepeatingTask) {
        if let timer = task.timer { hail_loop_timer_stop(timer) }
        task.timer = nil
    }

    /// Stops accepting: the listener is taken off the loop and shut down (new connects are refused); the
    /// connections already accepted go on. Returns once done, or at once on a loop that has ended.
    func stopListening() async {
        guard listener >= 0, !isFinished else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // A post always runs: on the loop thread, or after the stop on whichever thread drains what was left,
            // when the loop (and its listener) is gone and there is nothing to stop.
            executor.post { [self] in
                if executor.isOnLoopThread { hail_loop_unlisten(loop) }
                continuation.resume()
            }
        }
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
            if listener >= 0 { close(listener) }
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

    /// Has the loop gather readiness (`EventLoopOptions.ioCollectSeconds`) while it holds at least
    /// `ioCollectFromConnections` connections, and poll at once below; loop thread only.
    func connectionsChanged(to count: Int) {
        let collects = ioCollectSeconds > 0 && count >= ioCollectFromConnections
        guard executor.isOnLoopThread, collects != collectsIO else { return }
        collectsIO = collects
        hail_loop_set_io_collect(loop, collects ? ioCollectSeconds : 0)
    }

    /// True once the loop has ended.
    var isFinished: Bool { lifecycle.withLock { $0.finished } }

    /// Has `decide` called, on this loop's thread, with each connection its listener accepts, instead of adopting it
    /// here: the server places it on this loop or another (`adopt(_:)`). Call before `start()`.
    func onAccept(_ decide: @escaping (Int32) -> Void) {
        box.accepted = decide
    }

    /// Makes `fd`, accepted by the server's listening loop, one of this loop's connections; loop thread only. False
    /// when the loop is stopping or lws refused it: then the socket is closed (once: by lws when it refused it).
    func adopt(_ fd: Int32) -> Bool {
        guard executor.isOnLoopThread, !lifecycle.withLock({ $0.stopRequested }) else {
            close(fd)
            return false
        }
        return HailNet.adopt(fd, box)
    }
}
