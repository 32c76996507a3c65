/// The body of `PUT /v1/devices/me`: `{"platform": "ios", "token": "<hex>", "environment": "production",
/// "bundleID": "com.example.rider"}`. A newer registration replaces the principal's older one.
public struct DeviceRegistration: Codable, Sendable, Hashable, Validatable {
    /// The device's platform; only `ios` (APNs) for now.
    public var platform: DevicePlatform
    /// The APNs device token, hex.
    public var token: String
    /// Which APNs the token belongs to: a development build's tokens only work on the sandbox.
    public var environment: PushEnvironment
    /// The app's bundle id, the `apns-topic`; nil for the server's configured topic.
    public var bundleID: String?

    /// Creates a registration.
    public init(
        platform: DevicePlatform = .ios, token: String, environment: PushEnvironment, bundleID: String? = nil
    ) {
        self.platform = platform
        self.token = token
        self.environment = environment
        self.bundleID = bundleID
    }

    /// The token must be hex of a push token's length; a bundle id must look like one.
    public func validate() throws(APIError) {
        try PushTokenFormat.check(token, at: "token")
        if let bundleID { try PushTokenFormat.checkBundleID(bundleID, at: "bundleID") }
    }
}

/// The body of `PUT /v1/trips/{id}/live-activity`: `{"token": "<hex>"}`, the push token of the Live Activity
/// the rider's app started for that trip.
public struct LiveActivityRegistration: Codable, Sendable, Hashable, Validatable {
    /// The activity's push token, hex.
    public var token: String

    /// Creates a registration.
    public init(token: String) { self.token = token }

    /// The token must be hex of a push token's length.
    public func validate() throws(APIError) {
        try PushTokenFormat.check(token, at: "token")
    }
}

/// A device's platform, for its push service.
public enum DevicePlatform: String, Codable, Sendable, Hashable, CaseIterable {
    /// iPhone and iPad, through APNs.
    case ios

    /// Reads the platform, naming the accepted values when the string is none of them.
    public init(from decoder: any Decoder) throws {
        self = try WireEnum.decode(from: decoder)
    }
}

/// Which APNs a token was issued by.
public enum PushEnvironment: String, Codable, Sendable, Hashable, CaseIterable {
    /// Development builds: `api.sandbox.push.apple.com`.
    case sandbox
    /// App Store and TestFlight builds: `api.push.apple.com`.
    case production

    /// Reads the environment, naming the accepted values when the string is none of them.
    public init(from decoder: any Decoder) throws {
        self = try WireEnum.decode(from: decoder)
    }
}

/// Decodes a string enum, naming its accepted values in the error.
enum WireEnum {
    static func decode<Value: RawRepresentable & CaseIterable>(from decoder: any Decoder) throws -> Value
    where Value.RawValue == String {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Value(rawValue: text) else {
            let accepted = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected one of \(accepted), got \"\(text.prefix(40))\"")
        }
        return value
    }
}

/// What a push token and a bundle id must look like.
public enum PushTokenFormat {
    /// The fewest hex digits a token may have: today's APNs device tokens are 32 bytes.
    public static let minimumHexDigits = 64
    /// The most: Apple says tokens may grow, so longer ones up to 100 bytes are kept.
    public static let maximumHexDigits = 200

    /// `bytes` as lower-case hex, the form the routes take: iOS hands tokens over as `Data`.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Fails unless `token` is an even number of hex digits within the bounds.
    public static func check(_ token: String, at field: String) throws(APIError) {
        let name = FieldPath.lastComponent(field)
        guard token.utf8.allSatisfy(isHexDigit) else {
            throw APIError.invalidField(field, "\(name) must be hexadecimal digits (0-9, a-f)")
        }
        let count = token.utf8.count
        guard count % 2 == 0, (minimumHexDigits...maximumHexDigits).contains(count) else {
            throw APIError.invalidField(
                field,
                "\(name) must be an even number of hex digits from \(minimumHexDigits) to \(maximumHexDigits),"
                    + " not \(count)")
        }
    }

    /// Fails unless `bundleID` is a reverse-DNS name of letters, digits, dots and hyphens, at most 155 bytes.
    public static func checkBundleID(_ bundleID: String, at field: String) throws(APIError) {
        let allowed = bundleID.utf8.allSatisfy { isLetterOrDigit($0) || $0 == 0x2E || $0 == 0x2D }
        guard allowed, !bundleID.isEmpty, bundleID.utf8.count <= 155, bundleID.contains(".") else {
            throw APIError.invalidField(
                field, "\(FieldPath.lastComponent(field)) must be a bundle id such as com.example.rider")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte)
    }
}
