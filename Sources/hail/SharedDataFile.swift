import Foundation

/// The project's real data (`../shared/data` beside the repository, or `$HAIL_SHARED_DATA`), where `hail demo`,
/// `hail sim` and `hail bench` find Monaco's map and the recorded drives when no file is given.
enum SharedDataFile {
    /// The data folder: `$HAIL_SHARED_DATA` when set, else `../shared/data` from the working directory (the
    /// repository's root, where the README's commands run).
    static var directory: String {
        if let override = ProcessInfo.processInfo.environment["HAIL_SHARED_DATA"], !override.isEmpty {
            return override
        }
        return "../shared/data"
    }

    /// The path of `relativePath` inside the data folder, or nil when that file is not on this machine.
    static func path(_ relativePath: String) -> String? {
        let path = directory + "/" + relativePath
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Monaco's OpenStreetMap extract.
    static let monacoMap = "osm/monaco.osm.pbf"
    /// The real Munich drive the wire figures are measured on.
    static let munichTrace = "traces/barefoot-munich/x0001-001.json"
    /// The Kubicka et al. (2015) tracks with their maps and true routes, for `hail bench match`.
    static let kubickaTracks = "traces/kubicka-open-data"
}
