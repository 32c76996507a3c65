// The process-free half of the test support (clocks, waits, fixtures) is HailTestSupport, which the app-core tests
// use alone so that they build on macOS; every other test gets it with HailTesting.
@_exported import HailTestSupport
