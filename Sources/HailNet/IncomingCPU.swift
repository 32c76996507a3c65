#if canImport(Glibc)
    import Glibc
#endif

/// The processor that handles a socket's incoming packets (`SO_INCOMING_CPU`): for a connection from this machine,
/// the core its client thread sent from; from the network, the core taking its receive queue's interrupts.
enum IncomingCPU {
    /// The core of `descriptor`'s last received packet, nil where the kernel does not say.
    static func of(_ descriptor: Int32) -> Int? {
        #if canImport(Glibc)
            var cpu: Int32 = -1
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &size) == 0, cpu >= 0 else { return nil }
            return Int(cpu)
        #else
            return nil
        #endif
    }
}
