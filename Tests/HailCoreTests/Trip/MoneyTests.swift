import HailCore
import Testing

@Suite("Money")
struct MoneyTests {
    @Test func addsInOneCurrency() throws {
        let fare = try Money(amountMinor: 1200, currency: "EUR").adding(Money(amountMinor: 650, currency: "EUR"))
        #expect(fare == Money(amountMinor: 1850, currency: "EUR"))
        #expect(fare.description == "1850 EUR")
    }

    @Test func refusesToMixCurrencies() {
        #expect(throws: MoneyError.currencyMismatch("EUR", "USD")) {
            try Money(amountMinor: 100, currency: "EUR").adding(Money(amountMinor: 100, currency: "USD"))
        }
        #expect(throws: MoneyError.currencyMismatch("EUR", "GBP")) {
            try Money(amountMinor: 100, currency: "EUR").atLeast(Money(amountMinor: 700, currency: "GBP"))
        }
    }

    @Test func refusesToOverflow() {
        #expect(throws: MoneyError.overflow) { try Money(amountMinor: .max, currency: "EUR").multiplied(by: 2) }
    }

    @Test func minimumFareApplies() throws {
        let floor = Money(amountMinor: 700, currency: "EUR")
        #expect(try Money(amountMinor: 420, currency: "EUR").atLeast(floor) == floor)
        #expect(try Money(amountMinor: 1850, currency: "EUR").atLeast(floor).amountMinor == 1850)
    }

    @Test(arguments: [("EUR", true), ("usd", false), ("EURO", false), ("", false), ("E1R", false)])
    func currencyMustBeThreeUpperCaseLetters(code: String, valid: Bool) {
        #expect((Money(amountMinor: 1, currency: code).validationProblem == nil) == valid)
    }
}
