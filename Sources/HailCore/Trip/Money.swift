/// An amount of money in integer minor units (cents) of one ISO 4217 currency. Never a Double.
///
/// Arithmetic refuses to mix currencies: `adding(_:)` throws `MoneyError.currencyMismatch`
/// rather than returning a number that means nothing.
public struct Money: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The amount in the currency's minor unit (1850 EUR minor units are 18.50 EUR).
    public var amountMinor: Int
    /// The ISO 4217 code, three upper-case letters such as `EUR`.
    public var currency: String

    /// Creates an amount without checking the currency code; `validationProblem` checks it.
    public init(amountMinor: Int, currency: String) {
        self.amountMinor = amountMinor
        self.currency = currency
    }

    /// Zero in `currency`.
    public static func zero(_ currency: String) -> Money { Money(amountMinor: 0, currency: currency) }

    /// Why this value is not money Hail accepts, or nil.
    public var validationProblem: String? {
        let letters = currency.utf8
        guard letters.count == 3, letters.allSatisfy({ (65...90).contains($0) }) else {
            return "currency must be an ISO 4217 code of three upper-case letters"
        }
        return nil
    }

    /// The sum of two amounts in the same currency.
    public func adding(_ other: Money) throws(MoneyError) -> Money {
        guard currency == other.currency else { throw .currencyMismatch(currency, other.currency) }
        let (sum, overflow) = amountMinor.addingReportingOverflow(other.amountMinor)
        guard !overflow else { throw .overflow }
        return Money(amountMinor: sum, currency: currency)
    }

    /// This amount minus `other`, in the same currency.
    public func subtracting(_ other: Money) throws(MoneyError) -> Money {
        guard currency == other.currency else { throw .currencyMismatch(currency, other.currency) }
        let (difference, overflow) = amountMinor.subtractingReportingOverflow(other.amountMinor)
        guard !overflow else { throw .overflow }
        return Money(amountMinor: difference, currency: currency)
    }

    /// This amount times a whole number.
    public func multiplied(by factor: Int) throws(MoneyError) -> Money {
        let (product, overflow) = amountMinor.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .overflow }
        return Money(amountMinor: product, currency: currency)
    }

    /// The larger of two amounts in the same currency (a minimum fare, say).
    public func atLeast(_ floor: Money) throws(MoneyError) -> Money {
        guard currency == floor.currency else { throw .currencyMismatch(currency, floor.currency) }
        return amountMinor >= floor.amountMinor ? self : floor
    }

    /// `1850 EUR`: the exact stored value, for logs; formatting for people belongs to the app.
    public var description: String { "\(amountMinor) \(currency)" }
}

/// Why an operation on money was refused.
public struct MoneyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added, so a `switch` over it needs a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case currencyMismatch
            case overflow
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The two amounts are in different currencies.
        public static let currencyMismatch = Code(.currencyMismatch)
        /// The result does not fit in 64 bits of minor units.
        public static let overflow = Code(.overflow)

        /// The code's name.
        public var description: String {
            switch base {
            case .currencyMismatch: "currencyMismatch"
            case .overflow: "overflow"
            }
        }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed, for logs.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// `first` and `second` are different currencies.
    public static func currencyMismatch(_ first: String, _ second: String) -> MoneyError {
        MoneyError(.currencyMismatch, "cannot combine \(first) with \(second)")
    }

    /// The result does not fit in 64 bits of minor units.
    public static let overflow = MoneyError(.overflow, "the amount does not fit in 64 bits of minor units")
}
