import CLibWebSockets

/// One encoded WebSocket message, built once and sent to any number of connections without copying.
///
/// The payload sits after `LWS_PRE` bytes of headroom, where lws writes the frame header in place.
public final class SharedMessage: @unchecked Sendable {
    // @unchecked: the payload bytes never change after `init`. The headroom in front of them is
    // scratch space that lws_write fills with the frame header; it is only written on a loop thread
    // and every server connection writes the same bytes there (unmasked frames, no extensions), so
    // two loops writing it concurrently write identical values. Client connections copy instead,
    // because a client masks the payload in place.
    private let storage: UnsafeMutableRawPointer
    /// Payload length in bytes (without the headroom).
    public let count: Int
    /// True for a binary frame, false for a text frame.
    public let isBinary: Bool

    static let headroom = Int(hail_lws_pre())

    /// A text message with the UTF-8 bytes of `text`.
    public convenience init(text: String) {
        var text = text
        let count = text.utf8.count
        self.init(count: count, isBinary: false) { destination in
            text.withUTF8 { source in
                if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: count) }
            }
        }
    }

    /// A binary message holding a copy of `bytes`.
    public convenience init(binary bytes: [UInt8]) {
        self.init(count: bytes.count, isBinary: true) { destination in
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: bytes.count) }
            }
        }
    }

    private init(count: Int, isBinary: Bool, fill: (UnsafeMutableRawPointer) -> Void) {
        self.count = count
        self.isBinary = isBinary
        storage = .allocate(byteCount: Self.headroom + max(count, 1), alignment: 16)
        fill(storage + Self.headroom)
    }

    deinit {
        storage.deallocate()
    }

    /// Start of the payload; `payload - LWS_PRE` is writable headroom.
    var payload: UnsafeMutableRawPointer { storage + Self.headroom }

    /// A copy of the payload bytes.
    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: payload, count: count))
    }
}
