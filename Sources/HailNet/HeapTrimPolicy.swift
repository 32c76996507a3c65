/// When the server hands malloc's free pages back to the kernel: once a burst of connections opening or closing
/// has settled.
///
/// A WebSocket's handshake allocates several times what its idle stream keeps (the request's header fields, the
/// upgrade decision's and the setup's tasks, the hello frame), on whichever loop or pool thread ran it, between the
/// allocations that stay. glibc keeps the freed pieces for reuse, so after a ramp of 19,000 drivers about 1.8 KB a
/// stream of freed memory stayed resident (`docs/BENCHMARKS.md`, "Idle streams under 8 KB"). `malloc_trim` returns
/// the whole free pages; it walks every arena, so it runs once a burst is over, not during it. Pure: the runtime
/// hands it the connection counters at each check and trims when it says so.
struct HeapTrimPolicy: Equatable {
    /// Connections opened or closed since the last trim that make one worth it.
    let churnThreshold: Int
    /// At most this many opened or closed since the previous check: the burst is over.
    let settledBelow: Int
    private var churnAtLastTrim = 0
    private var churnAtLastCheck = 0

    /// A policy trimming after `churnThreshold` connections came or went, once fewer than `settledBelow` do per check.
    init(churnThreshold: Int, settledBelow: Int) {
        self.churnThreshold = churnThreshold
        self.settledBelow = settledBelow
    }

    /// A periodic check with the connections opened and closed so far (monotonic): true when the runtime should
    /// trim now.
    mutating func check(churn: Int) -> Bool {
        defer { churnAtLastCheck = churn }
        guard churnThreshold > 0, churn - churnAtLastTrim >= churnThreshold, churn - churnAtLastCheck < settledBelow
        else { return false }
        churnAtLastTrim = churn
        return true
    }
}
