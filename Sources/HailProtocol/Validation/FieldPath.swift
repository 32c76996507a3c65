/// Field paths as error bodies print them: keys joined by dots, array positions in brackets
/// (`points[3].lat`), the root as the empty string.
public enum FieldPath {
    /// The path of a `Codable` coding path, such as `pickup.lat` or `points[0].t`.
    public static func render(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                path += "[\(index)]"
            } else {
                path = join(path, key.stringValue)
            }
        }
        return path
    }

    /// `prefix.name`, or `name` when the prefix is the root.
    public static func join(_ prefix: String, _ name: String) -> String {
        prefix.isEmpty ? name : "\(prefix).\(name)"
    }

    /// `prefix[index]`.
    public static func index(_ prefix: String, _ index: Int) -> String {
        "\(prefix)[\(index)]"
    }

    /// The last key of a path (`lat` for `points[2].lat`), for messages that name the field.
    public static func lastComponent(_ path: String) -> String {
        let afterDot = path.split(separator: ".").last.map(String.init) ?? path
        if let bracket = afterDot.firstIndex(of: "[") { return String(afterDot[..<bracket]) }
        return afterDot
    }
}
