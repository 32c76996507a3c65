#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calling thread's identity as a number, for a lock-free "am I on that thread" compare (pthread_t is an
/// integer on Linux and a pointer on Darwin).
public enum ThreadIdentity {
    /// The calling thread.
    public static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
