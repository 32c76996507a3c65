import Foundation

/// Serves files from a directory for GET requests (the live map page and its assets).
enum StaticFiles {
    /// Content types by file extension; anything else is served as bytes.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json", "png": "image/png",
        "svg": "image/svg+xml", "jpg": "image/jpeg", "jpeg": "image/jpeg", "ico": "image/x-icon",
        "txt": "text/plain; charset=utf-8", "map": "application/json", "wasm": "application/wasm",
    ]

    /// The file's response, or nil when `path` names no regular file under `root`.
    static func response(root: String, path: String) -> HTTPResponse? {
        var relative = path
        if relative.hasSuffix("/") { relative += "index.html" }
        let components = relative.split(separator: "/", omittingEmptySubsequences: true)
        // lws already normalises "..", this keeps the guarantee local.
        guard !components.isEmpty, !components.contains(where: { $0 == ".." || $0.hasPrefix(".") }) else {
            return nil
        }
        let full = ([root] + components.map(String.init)).joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: full)
        else { return nil }
        let ext = components.last.map { String($0.split(separator: ".").last ?? "").lowercased() } ?? ""
        return HTTPResponse(
            status: 200, headers: ["Content-Type": contentTypes[ext] ?? "application/octet-stream"], body: [UInt8](data)
        )
    }
}
