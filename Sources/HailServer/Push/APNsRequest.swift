import Foundation
import HailProtocol

/// One HTTP/2 request to APNs, laid out: path, headers in order, JSON body. Pure.
public struct APNsRequest: Sendable, Hashable {
    /// `/3/device/<token>`.
    public var path: String
    /// Header names (lower case, as HTTP/2 sends them) and values.
    public var headers: [(name: String, value: String)]
    /// The payload.
    public var body: [UInt8]

    /// The request for `request` to `token` on the app `bundleID`, authorised by the provider token `jwt`.
    public init<Payload: Codable & Sendable & Hashable>(
        _ request: PushDelivery.Request<Payload>, token: String, bundleID: String, jwt: String
    ) throws {
        path = "/3/device/" + token
        var headers: [(String, String)] = [
            ("authorization", "bearer " + jwt),
            ("apns-push-type", request.pushType),
            ("apns-topic", bundleID + request.topicSuffix),
            ("apns-priority", String(request.priority)),
            ("apns-expiration", String(request.expiration)),
        ]
        if let collapseID = request.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        headers.append(("content-type", "application/json"))
        self.headers = headers.map { (name: $0.0, value: $0.1) }
        body = Array(try HailJSON.encode(request.payload))
    }

    /// Equal when path, headers (in order) and body are.
    public static func == (lhs: APNsRequest, rhs: APNsRequest) -> Bool {
        lhs.path == rhs.path && lhs.body == rhs.body && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Hashes path, headers and body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(body)
        for header in headers {
            hasher.combine(header.name)
            hasher.combine(header.value)
        }
    }
}
