import Foundation
import HailProtocol
import Synchronization

/// The web-map library the fleet page draws with: Leaflet, served from the system's copy (Debian's
/// `libjs-leaflet`, which `scripts/setup.sh` installs), never from a CDN and never committed here.
public final class LeafletAssets: Sendable {
    /// Where Debian's `libjs-leaflet` puts it.
    public static let debianDirectory = "/usr/share/javascript/leaflet"
    /// What to install when it is missing, as the page and the 404 say it.
    public static let installHint =
        "Leaflet is not installed on the server: run `sudo apt-get install libjs-leaflet` (scripts/setup.sh does)"

    /// The names the page asks for, and the file of the system's copy each is.
    static let files: [String: (file: String, contentType: String)] = [
        "leaflet.js": ("leaflet.min.js", "text/javascript; charset=utf-8"),
        "leaflet.css": ("leaflet.css", "text/css; charset=utf-8"),
    ]

    private let directory: String
    private let loaded = Mutex<[String: Data]>([:])

    /// Serves the copy in `directory`.
    public init(directory: String = LeafletAssets.debianDirectory) { self.directory = directory }

    /// `GET /assets/leaflet/{file}`: the file, read once and kept; 404 naming the problem otherwise.
    func response(for name: String) -> APIResponse {
        guard let entry = Self.files[name] else {
            return .error(APIError.notFound("no asset \(name.prefix(60)); there are leaflet.js and leaflet.css"))
        }
        let body: Data
        if let cached = loaded.withLock({ $0[name] }) {
            body = cached
        } else if let read = FileManager.default.contents(atPath: directory + "/" + entry.file) {
            loaded.withLock { $0[name] = read }
            body = read
        } else {
            return .error(APIError.notFound(Self.installHint))
        }
        return APIResponse(
            status: 200, headers: [HailHeader.contentType: entry.contentType, "Cache-Control": "max-age=3600"],
            body: body)
    }
}
