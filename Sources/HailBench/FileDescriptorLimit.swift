import Foundation

/// The process's open-file limit, which caps how many driver connections one process can hold
/// (in-process, each costs two descriptors: the client's end and the server's).
enum FileDescriptorLimit {
    /// Tries to raise both limits to `wanted` (root with CAP_SYS_RESOURCE may pass the hard limit), else
    /// raises the soft limit to the hard one; the limit now in force and, when `wanted` was refused, why.
    static func raise(toAtLeast wanted: Int) -> (limit: Int, refusal: String?) {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return (1024, "getrlimit failed") }
        var refusal: String?
        if Int(clamping: limit.rlim_max) < wanted {
            var raised = limit
            raised.rlim_cur = rlim_t(wanted)
            raised.rlim_max = rlim_t(wanted)
            if setrlimit(resource, &raised) != 0 {
                refusal =
                    "the open-file hard limit (RLIMIT_NOFILE) is \(limit.rlim_max) and raising it to \(wanted) "
                    + "was refused (\(String(cString: strerror(errno)))): the process lacks CAP_SYS_RESOURCE"
            }
        }
        return (raiseToMaximum(), refusal)
    }

    /// Raises the soft limit to the hard one and returns the limit now in force.
    static func raiseToMaximum() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
