import Testing

@testable import HailScale

@Suite("PostgreSQL timeouts added to the operator's URL")
struct PostgresTimeoutsTests {
    @Test func theDefaultsGoBeforeTheURLSoTheURLWins() {
        let timeouts = PostgresTimeouts()
        #expect(
            timeouts.connectionParameters.map { "\($0.0)=\($0.1)" } == [
                "connect_timeout=3", "keepalives=1", "keepalives_idle=10", "keepalives_interval=5",
                "keepalives_count=3",
                "tcp_user_timeout=10000",
            ])
        #expect(timeouts.deadline == .seconds(2))
        #expect(timeouts.statementWait == .seconds(4))
    }

    @Test func aSessionSettingTheURLsOptionsNameIsLeftToThem() {
        var timeouts = PostgresTimeouts()
        timeouts.statement = .milliseconds(2500)
        #expect(
            timeouts.sessionSettings(besides: "") == [
                "SET statement_timeout = 2500", "SET lock_timeout = 2000",
                "SET idle_in_transaction_session_timeout = 5000",
            ])
        #expect(
            timeouts.sessionSettings(besides: "-c lock_timeout=500 -c statement_timeout=9s") == [
                "SET idle_in_transaction_session_timeout = 5000"
            ])
    }
}
