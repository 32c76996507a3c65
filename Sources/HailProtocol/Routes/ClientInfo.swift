/// The parsed `X-Hail-Client` header: `hail-rider/1.4.0 (iPhone15,2)`.
///
/// Parsing is tolerant because the header is informational (logs, metrics, compatibility checks):
/// whatever part is missing or odd becomes nil, and nothing about it is an error.
public struct ClientInfo: Sendable, Hashable, CustomStringConvertible {
    /// The app, such as `hail-rider` or `hail-driver`.
    public var app: String
    /// The app's version, such as `1.4.0`, or nil when not given.
    public var version: String?
    /// The hardware model, such as `iPhone15,2`, or nil when not given.
    public var deviceModel: String?

    /// Creates client info.
    public init(app: String, version: String? = nil, deviceModel: String? = nil) {
        self.app = app
        self.version = version
        self.deviceModel = deviceModel
    }

    /// Parses a header value; nil only when there is no app name at all.
    public init?(headerValue: String?) {
        guard var rest = headerValue?.trimmingSpaces, !rest.isEmpty else { return nil }
        var model: String?
        // Found among scalars, not characters: a combining mark after "(" makes one character of the two, and the
        // model written back as "(" + model + ")" would hide its parenthesis.
        let scalars = rest.unicodeScalars
        if let open = scalars.firstIndex(of: "(") {
            let inside = scalars[scalars.index(after: open)...]
            let close = inside.firstIndex(of: ")") ?? inside.endIndex
            let text = String(String.UnicodeScalarView(inside[..<close])).trimmingSpaces
            model = text.isEmpty ? nil : text
            rest = String(String.UnicodeScalarView(scalars[..<open])).trimmingSpaces
        }
        // Tabs are HTTP whitespace too: `hail-rider\t(x)` names the app `hail-rider`, as it reads back.
        let product = rest.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        let parts = product.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let app = parts.first.map(String.init) ?? ""
        guard !app.isEmpty else { return nil }
        let version = parts.count > 1 ? String(parts[1]) : ""
        self.init(app: app, version: version.isEmpty ? nil : version, deviceModel: model)
    }

    /// The header value: `hail-rider/1.4.0 (iPhone15,2)`, leaving out what is unknown.
    public var description: String { headerValue }

    /// The header value a client sends.
    public var headerValue: String {
        var text = app
        if let version { text += "/\(version)" }
        if let deviceModel { text += " (\(deviceModel))" }
        return text
    }
}
