import CLibWebSockets

/// One encoded WebSocket message, built once and sent to any number of connections without copying.
///
/// Each loop copies the payload into its own staging buffer (`WriteScratch`) to write it, so the bytes here
/// are only ever read.
public final class SharedMessage: @unchecked Sendable {
    // @unchecked: a raw allocation written once in `init` and only read afterwards, from any thread.
    private let storage: UnsafeMutableRawPointer
    /// Payload length in bytes (without the headroom).
    public let count: Int
    /// True for a binary frame, false for a text frame.
    public let isBinary: Bool

    /// Bytes lws needs in front of a payload it writes.
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
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        fill(storage)
    }

    deinit {
        storage.deallocate()
    }

    /// Start of the payload.
    var payload: UnsafeRawPointer { UnsafeRawPointer(storage) }

    /// A copy of the payload bytes.
    public var bytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: payload, count: count))
    }
}
