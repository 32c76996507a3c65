/// A pattern where `*` stands for any run of characters (none included) and every other character for itself:
/// `hail-rider`, `1.4.*`, `*-beta*`, `iPhone13,*`. Case-sensitive, as app versions and hardware models are.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    /// The literal pieces between the stars.
    private let pieces: [[UInt8]]

    /// Reads `text`.
    public init(_ text: String) {
        self.text = text
        pieces = Array(text.utf8).split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map(Array.init)
    }

    /// True when `value` matches the whole pattern.
    public func matches(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        if pieces.count == 1 { return bytes == pieces[0] }
        var position = 0
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                guard bytes.starts(with: piece) else { return false }
                position = piece.count
            } else if index == pieces.count - 1 {
                // The last piece must end the value, after everything matched so far.
                guard bytes.count - piece.count >= position, bytes.suffix(piece.count).elementsEqual(piece) else {
                    return false
                }
                position = bytes.count
            } else if !piece.isEmpty {
                guard let found = Self.find(piece, in: bytes, from: position) else { return false }
                position = found + piece.count
            }
        }
        return true
    }

    private static func find(_ piece: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard piece.count <= bytes.count - start else { return nil }
        return (start...(bytes.count - piece.count)).first {
            bytes[$0..<$0 + piece.count].elementsEqual(piece)
        }
    }

    /// The pattern as written.
    public var description: String { text }
}
