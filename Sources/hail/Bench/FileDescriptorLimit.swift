import Foundation

/// The process's open-file limit, which caps how many driver connections one process can hold
/// (in-process, each costs two descriptors: the client's end and the server's).
enum FileDescriptorLimit {
    /// Raises the soft limit to the hard one and returns the limit now in force.
    static func raiseToMaximum() -> Int {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
