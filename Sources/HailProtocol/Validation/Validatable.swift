import HailCore

/// A request body or client frame that can check its own values after decoding.
///
/// Decoding proves the shape; `validate()` proves the meaning (a latitude on Earth, a UUID where a
/// UUID belongs) and throws an `APIError` whose `field` is the path from the body's root.
public protocol Validatable {
    /// Throws the first problem found, naming its field; returns when the value is acceptable.
    func validate() throws(APIError)

    /// The value an empty request body stands for, or nil when the body is required.
    static var valueForEmptyBody: Self? { get }
}

extension Validatable {
    /// Bodies are required unless a type says otherwise.
    public static var valueForEmptyBody: Self? { nil }
}

/// The checks shared by the request bodies, each naming the field it fails on.
public enum FieldCheck {
    /// Fails when `coordinate` is not a place on Earth; the field is `prefix.lat` or `prefix.lng`.
    public static func coordinate(_ coordinate: Coordinate, at prefix: @autoclosure () -> String) throws(APIError) {
        if let problem = coordinate.validationProblem {
            throw APIError.invalidField(FieldPath.join(prefix(), problem.component), problem.message)
        }
    }

    /// Fails when `money` has a malformed currency; the field is `prefix.currency`.
    public static func money(_ money: Money, at prefix: String) throws(APIError) {
        if let problem = money.validationProblem {
            throw APIError.invalidField(FieldPath.join(prefix, "currency"), problem)
        }
    }

    /// Fails unless `value` is finite and within `range`; the field's path is only built for the error, since
    /// location batches check tens of thousands of fixes a second.
    public static func number(_ value: Double, in range: ClosedRange<Double>, at field: @autoclosure () -> String)
        throws(APIError)
    {
        guard value.isFinite else {
            throw APIError.invalidField(field(), "\(FieldPath.lastComponent(field())) must be a finite number")
        }
        guard range.contains(value) else {
            throw APIError.invalidField(
                field(),
                "\(FieldPath.lastComponent(field())) must be between \(format(range.lowerBound)) and "
                    + "\(format(range.upperBound))")
        }
    }

    /// Fails unless `text` is a UUID such as `7c9e6679-7425-40de-944b-e07fc1f90ae7`.
    public static func uuid(_ text: String, at field: String) throws(APIError) {
        guard IdempotencyKey.isValid(text) else {
            throw APIError.invalidField(
                field, "\(FieldPath.lastComponent(field)) must be a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7")
        }
    }

    /// Fails when `text` is empty or longer than `maxLength` UTF-8 bytes.
    public static func text(_ text: String, maxLength: Int, at field: String) throws(APIError) {
        let name = FieldPath.lastComponent(field)
        guard !text.isEmpty else { throw APIError.invalidField(field, "\(name) must not be empty") }
        guard text.utf8.count <= maxLength else {
            throw APIError.invalidField(field, "\(name) must be at most \(maxLength) bytes")
        }
    }

    /// `90` rather than `90.0`, so messages read like the brief's.
    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
