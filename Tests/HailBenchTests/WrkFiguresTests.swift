import Testing

@testable import HailBench

/// Reading wrk's report, on outputs recorded from wrk 4.1.0 (Debian 12) on this machine.
@Suite struct WrkFiguresTests {
    /// `wrk -t 2 -c 8 -d 5s --latency http://127.0.0.1:18480/healthz` against the fixed server, 2026-12-07.
    static let healthz = """
        Running 5s test @ http://127.0.0.1:18480/healthz
          2 threads and 8 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency   638.79us  623.42us  12.74ms   95.15%
            Req/Sec     7.07k     1.77k    8.83k    75.25%
          Latency Distribution
             50%  463.00us
             75%  710.00us
             90%    1.02ms
             99%    3.46ms
          71058 requests in 5.10s, 11.11MB read
        Requests/sec:  13934.64
        Transfer/sec:      2.18MB

        """

    /// The same command before the fix (the 40 ms stall), with errors and refusals added as wrk prints them.
    static let stalled = """
        Running 5s test @ http://127.0.0.1:18480/healthz
          2 threads and 8 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency    45.92ms    4.50ms  55.93ms   95.41%
            Req/Sec    87.24     15.09   121.00     83.00%
          Latency Distribution
             50%   46.69ms
             75%   47.99ms
             90%   48.20ms
             99%   55.30ms
          872 requests in 5.01s, 139.66KB read
          Socket errors: connect 0, read 3, write 1, timeout 12
          Non-2xx or 3xx responses: 17
        Requests/sec:    174.18
        Transfer/sec:     27.90KB

        """

    @Test func readsRateRequestsAndLatencyPercentilesInMilliseconds() throws {
        let figures = try #require(WrkFigures.parse(Self.healthz))
        #expect(
            figures
                == WrkFigures(
                    requests: 71_058, seconds: 5.10, requestsPerSecond: 13_934.64, p50Ms: 0.463, p99Ms: 3.46,
                    maxMs: 12.74, non2xx: 0, socketErrors: 0))
    }

    @Test func readsRefusalsAndSocketErrors() throws {
        let figures = try #require(WrkFigures.parse(Self.stalled))
        #expect(
            figures
                == WrkFigures(
                    requests: 872, seconds: 5.01, requestsPerSecond: 174.18, p50Ms: 46.69, p99Ms: 55.30,
                    maxMs: 55.93, non2xx: 17, socketErrors: 16))
    }

    @Test func anOutputWithoutTheLatencyDistributionIsRefused() {
        let withoutLatency = Self.healthz.split(separator: "\n").filter { !$0.contains("%  ") }.joined(separator: "\n")
        #expect(WrkFigures.parse(withoutLatency) == nil)
        #expect(WrkFigures.parse("unable to connect to 127.0.0.1:9 Connection refused\n") == nil)
    }

    @Test func unitsBecomeMilliseconds() {
        #expect(WrkFigures.milliseconds("250.00us") == 0.25)
        #expect(WrkFigures.milliseconds("1.50ms") == 1.5)
        #expect(WrkFigures.milliseconds("2.00s") == 2_000)
        #expect(WrkFigures.milliseconds("1.00m") == 60_000)
        #expect(WrkFigures.milliseconds("12") == nil)
    }
}
