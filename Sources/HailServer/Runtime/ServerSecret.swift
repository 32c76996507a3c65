import Foundation
import HailNet

/// The token-signing secret on disk: 32 random bytes as hex, created on first run (`O_EXCL`, mode 0600), refused when others may read it.
public enum ServerSecret {
    /// Why the secret could not be had.
    public struct Problem: Error, CustomStringConvertible {
        /// What to fix.
        public let description: String
    }

    /// The secret at `path`, creating it when missing (`O_EXCL`, mode 0600); `created` says which happened.
    public static func loadOrCreate(at path: String) throws(Problem) -> (secret: [UInt8], created: Bool) {
        if FileManager.default.fileExists(atPath: path) { return (try load(at: path), false) }
        do {
            try SecretFile.create(at: path, contents: SecureRandom.hex(byteCount: 32) + "\n")
        } catch {
            // Another process made it between the check and the create: theirs is the one to use.
            if FileManager.default.fileExists(atPath: path) { return (try load(at: path), false) }
            throw Problem(
                description:
                    "cannot create the secret file \(path) (\(error)); check that its folder exists and is writable")
        }
        return (try load(at: path), true)
    }

    /// The secret at `path`; it must exist, be readable by its owner only and hold at least 32 bytes of hex.
    public static func load(at path: String) throws(Problem) -> [UInt8] {
        do throws(SecretFile.Problem) {
            try SecretFile.checkPrivate(path)
        } catch {
            throw Problem(description: "the secret file \(error.description)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(
                description:
                    "cannot read the secret file \(path); run `hail server` once to create it, or pass --secret-file")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count >= 64, text.count % 2 == 0, let bytes = Self.bytes(fromHex: text) else {
            throw Problem(description: "the secret file \(path) must hold at least 64 hex digits (32 bytes)")
        }
        return bytes
    }

    private static func bytes(fromHex text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
