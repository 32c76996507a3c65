import Foundation
import HailServer

/// A bus message as it travels on a Redis channel: `b1|`, the kind (`e` essential, `d` disposable), whether it
/// ends the stream (`1` or `0`), the publish time in seconds since 1970 (empty when unknown), then the frame's
/// text as it is, after the fourth `|`.
///
/// Every position a rider watches crosses the bus, so this is on the hot path of both nodes: the JSON object it
/// replaces escaped the frame (itself JSON) on every publish and unescaped it on every delivery, a twentieth
/// of a scaled node's CPU. Payloads published in JSON by an older node (they start with `{`) still read.
enum BusPayloadText {
    private static let tag = "b1|"

    /// The JSON form older nodes publish and read.
    private struct JSONForm: Codable {
        var kind: BusMessage.Kind
        var text: String
        var endsStream: Bool
        var publishedAt: Double?
    }

    /// `message` as a channel payload.
    static func payload(_ message: BusMessage) -> String {
        var payload = tag
        payload += message.kind == .essential ? "e|" : "d|"
        payload += message.endsStream ? "1|" : "0|"
        if let publishedAt = message.publishedAt { payload += publishedAt.timeIntervalSince1970.description }
        payload += "|"
        payload += message.text
        return payload
    }

    /// The message in `payload`, either form; nil when it is neither (a foreign publisher on the channel).
    static func message(from payload: String) -> BusMessage? {
        guard payload.hasPrefix(tag) else {
            guard let form = try? JSONDecoder().decode(JSONForm.self, from: Data(payload.utf8)) else { return nil }
            return BusMessage(
                kind: form.kind, text: form.text, endsStream: form.endsStream,
                publishedAt: form.publishedAt.map(Date.init(timeIntervalSince1970:)))
        }
        let fields = payload.dropFirst(tag.count).split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[1] == "1" || fields[1] == "0" else { return nil }
        let kind: BusMessage.Kind
        switch fields[0] {
        case "e": kind = .essential
        case "d": kind = .disposable
        default: return nil
        }
        var publishedAt: Date?
        if !fields[2].isEmpty {
            guard let seconds = Double(fields[2]) else { return nil }
            publishedAt = Date(timeIntervalSince1970: seconds)
        }
        return BusMessage(kind: kind, text: String(fields[3]), endsStream: fields[1] == "1", publishedAt: publishedAt)
    }
}
