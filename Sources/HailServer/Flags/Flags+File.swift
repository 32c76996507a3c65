import HailCore
import HailProtocol

extension Flags {
    /// The largest flags file read, bytes.
    public static let maximumFileBytes = 1 << 20

    /// Reads and checks a flags file (docs/DEPLOY.md, "Flags per cohort"); throws every problem found, each with
    /// its line and field. `providers` are the route providers this server has (`graph` needs a road network);
    /// `routeProvider` is the default when the file sets none.
    public static func parse(
        _ bytes: [UInt8], path: String, providers: [String], routeProvider: String
    ) throws(FlagsFileError) -> Flags {
        guard bytes.count <= maximumFileBytes else {
            throw FlagsFileError(
                path: path,
                problems: [FlagsProblem(line: nil, field: "", message: "the file is over \(maximumFileBytes) bytes")])
        }
        let root: FlagsJSON
        do { root = try FlagsJSON.parse(bytes) } catch { throw FlagsFileError(path: path, problems: [error]) }
        var reader = FlagsFileReader(providers: providers)
        let flags = reader.flags(root, routeProvider: routeProvider)
        guard let flags, reader.problems.isEmpty else { throw FlagsFileError(path: path, problems: reader.problems) }
        return flags
    }
}

/// The checks of a flags file's JSON, gathering every problem rather than stopping at the first.
private struct FlagsFileReader {
    let providers: [String]
    var problems: [FlagsProblem] = []

    init(providers: [String]) { self.providers = providers }

    mutating func flags(_ root: FlagsJSON, routeProvider: String) -> Flags? {
        guard let members = object(root, at: "", keys: ["description", "regions", "defaults", "cohorts"]) else {
            return nil
        }
        if let description = members["description"] { _ = string(description, at: "description") }
        var regions: [RegionMap.Region] = []
        if let node = members["regions"], let elements = array(node, at: "regions") {
            for (index, element) in elements.enumerated() {
                if let region = region(element, at: "regions[\(index)]", known: regions) { regions.append(region) }
            }
        }
        var defaults = FlagValues(routeProvider: routeProvider)
        if let node = members["defaults"], let overrides = overrides(node, at: "defaults") {
            defaults = defaults.applying(overrides)
        }
        var cohorts: [CohortRule] = []
        if let node = members["cohorts"], let elements = array(node, at: "cohorts") {
            let names = Set(regions.map(\.name))
            for (index, element) in elements.enumerated() {
                let field = "cohorts[\(index)]"
                if let rule = cohort(element, at: field, regions: names) {
                    if cohorts.contains(where: { $0.name == rule.name }) {
                        problem(element, "\(field).name", "the name \"\(rule.name)\" is used by an earlier cohort")
                    } else {
                        cohorts.append(rule)
                    }
                }
            }
        }
        return Flags(defaults: defaults, cohorts: cohorts, regions: RegionMap(regions))
    }

    // MARK: Regions and cohorts

    mutating func region(_ node: FlagsJSON, at field: String, known: [RegionMap.Region]) -> RegionMap.Region? {
        guard
            let members = object(
                node, at: field, keys: ["name", "south", "west", "north", "east"],
                required: ["name", "south", "west", "north", "east"])
        else { return nil }
        let name = members["name"].flatMap { self.name($0, at: "\(field).name") }
        let south = members["south"].flatMap { number($0, at: "\(field).south", in: -90...90) }
        let north = members["north"].flatMap { number($0, at: "\(field).north", in: -90...90) }
        let west = members["west"].flatMap { number($0, at: "\(field).west", in: -180...180) }
        let east = members["east"].flatMap { number($0, at: "\(field).east", in: -180...180) }
        if let name, known.contains(where: { $0.name == name }) {
            problem(members["name"]!, "\(field).name", "the name \"\(name)\" is used by an earlier region")
            return nil
        }
        if let south, let north, south >= north {
            problem(members["north"]!, "\(field).north", "must be north of south (\(format(south)))")
            return nil
        }
        if let west, let east, west >= east {
            problem(
                members["east"]!, "\(field).east",
                "must be east of west (\(format(west))); a box may not cross the antimeridian")
            return nil
        }
        guard let name, let south, let north, let west, let east else { return nil }
        return RegionMap.Region(name: name, south: south, west: west, north: north, east: east)
    }

    mutating func cohort(_ node: FlagsJSON, at field: String, regions: Set<String>) -> CohortRule? {
        guard
            let members = object(
                node, at: field, keys: ["name", "description", "match", "flags"], required: ["name", "match", "flags"])
        else { return nil }
        if let description = members["description"] { _ = string(description, at: "\(field).description") }
        let name = members["name"].flatMap { self.name($0, at: "\(field).name") }
        let match = members["match"].flatMap { self.match($0, at: "\(field).match", regions: regions) }
        let overrides = members["flags"].flatMap { self.overrides($0, at: "\(field).flags") }
        guard let name, let match, let overrides else { return nil }
        var rule = match
        rule.name = name
        rule.line = node.line
        rule.overrides = overrides
        return rule
    }

    mutating func match(_ node: FlagsJSON, at field: String, regions: Set<String>) -> CohortRule? {
        guard
            let members = object(
                node, at: field, keys: ["role", "app", "version", "device", "region", "percent"])
        else { return nil }
        var rule = CohortRule(name: "", overrides: FlagOverrides())
        var ok = true
        if let node = members["role"] {
            if let texts = strings(node, at: "\(field).role") {
                var roles: Set<Role> = []
                for text in texts {
                    if text == "rider" || text == "driver", let role = Role(rawValue: text) {
                        roles.insert(role)
                    } else {
                        problem(node, "\(field).role", "must be rider or driver, not \"\(text.prefix(40))\"")
                        ok = false
                    }
                }
                rule.roles = roles
            } else {
                ok = false
            }
        }
        for (key, path) in [("app", \CohortRule.apps), ("version", \.versions), ("device", \.devices)] {
            guard let node = members[key] else { continue }
            guard let texts = strings(node, at: "\(field).\(key)") else {
                ok = false
                continue
            }
            for text in texts where text.isEmpty || text.utf8.count > 64 {
                problem(node, "\(field).\(key)", "a pattern must be 1 to 64 characters")
                ok = false
            }
            rule[keyPath: path] = texts.map(GlobPattern.init)
        }
        if let node = members["region"] {
            if let names = strings(node, at: "\(field).region") {
                for name in names where !regions.contains(name) {
                    let known =
                        regions.isEmpty ? "none are defined" : "defined: " + regions.sorted().joined(separator: ", ")
                    problem(node, "\(field).region", "there is no region \"\(name.prefix(40))\" (\(known))")
                    ok = false
                }
                rule.regions = Set(names)
            } else {
                ok = false
            }
        }
        if let node = members["percent"] {
            rule.percent = number(node, at: "\(field).percent", in: 0...100)
            if rule.percent == nil { ok = false }
        }
        return ok ? rule : nil
    }

    // MARK: Flags

    mutating func overrides(_ node: FlagsJSON, at field: String) -> FlagOverrides? {
        guard
            let members = object(
                node, at: field, keys: ["liveStream", "routeProvider", "etaSource", "locationPolicyCap", "pickupPIN"])
        else { return nil }
        var overrides = FlagOverrides()
        var ok = true
        if let node = members["liveStream"] {
            overrides.liveStream = liveStream(node, at: "\(field).liveStream")
            if overrides.liveStream == nil { ok = false }
        }
        if let node = members["routeProvider"] {
            if let name = string(node, at: "\(field).routeProvider") {
                if providers.contains(name) {
                    overrides.routeProvider = name
                } else {
                    let hint = name == "graph" ? " (graph needs hail server --roads)" : ""
                    problem(
                        node, "\(field).routeProvider",
                        "must be one of \(providers.joined(separator: ", ")), not \"\(name.prefix(40))\"\(hint)")
                    ok = false
                }
            } else {
                ok = false
            }
        }
        if let node = members["etaSource"] {
            if let source = choice(node, at: "\(field).etaSource", EtaSource.self) {
                overrides.etaSource = source
            } else {
                ok = false
            }
        }
        if let node = members["pickupPIN"] {
            if case .bool(let on) = node.value {
                overrides.pickupPIN = on
            } else {
                problem(node, "\(field).pickupPIN", "must be true or false, not \(node.kind)")
                ok = false
            }
        }
        if let node = members["locationPolicyCap"] {
            if case .null = node.value {
                overrides.locationPolicyCap = .some(nil)
            } else if let cap = cap(node, at: "\(field).locationPolicyCap") {
                overrides.locationPolicyCap = .some(cap)
            } else {
                ok = false
            }
        }
        return ok ? overrides : nil
    }

    mutating func liveStream(_ node: FlagsJSON, at field: String) -> LiveStreamSetting? {
        guard let members = object(node, at: field, keys: ["mode", "pollIntervalSeconds"], required: ["mode"]) else {
            return nil
        }
        let mode = members["mode"].flatMap { choice($0, at: "\(field).mode", LiveStreamSetting.Mode.self) }
        var interval = LiveStreamSetting.defaultPollIntervalSeconds
        if let node = members["pollIntervalSeconds"] {
            let range = LiveStreamSetting.pollIntervalRange
            guard let seconds = integer(node, at: "\(field).pollIntervalSeconds", in: range) else { return nil }
            interval = seconds
        }
        guard let mode else { return nil }
        return LiveStreamSetting(mode: mode, pollIntervalSeconds: interval)
    }

    mutating func cap(_ node: FlagsJSON, at field: String) -> LocationPolicyCap? {
        guard
            let members = object(
                node, at: field, keys: ["finestAccuracy", "minimumDistanceFilterMeters"],
                required: ["finestAccuracy", "minimumDistanceFilterMeters"])
        else { return nil }
        let accuracy = members["finestAccuracy"].flatMap {
            choice($0, at: "\(field).finestAccuracy", LocationAccuracy.self)
        }
        let filter = members["minimumDistanceFilterMeters"].flatMap {
            number($0, at: "\(field).minimumDistanceFilterMeters", in: 0...1000)
        }
        guard let accuracy, let filter else { return nil }
        return LocationPolicyCap(finestAccuracy: accuracy, minimumDistanceFilterMeters: filter)
    }

    // MARK: Values

    /// The members of an object by key, after checking there is no key outside `keys` and every `required` one is
    /// there; nil (with the problem noted) when the node is not an object.
    mutating func object(_ node: FlagsJSON, at field: String, keys: [String], required: [String] = [])
        -> [String: FlagsJSON]?
    {
        guard case .object(let members) = node.value else {
            problem(node, field, "must be an object, not \(node.kind)")
            return nil
        }
        var byKey: [String: FlagsJSON] = [:]
        for member in members {
            let path = field.isEmpty ? member.key : "\(field).\(member.key)"
            guard keys.contains(member.key) else {
                problems.append(
                    FlagsProblem(
                        line: member.line, field: path,
                        message: "is not a setting here (expected \(keys.joined(separator: ", ")))"))
                continue
            }
            byKey[member.key] = member.value
        }
        for key in required where !members.contains(where: { $0.key == key }) {
            problems.append(
                FlagsProblem(line: node.line, field: field.isEmpty ? key : "\(field).\(key)", message: "is required"))
        }
        return byKey
    }

    mutating func array(_ node: FlagsJSON, at field: String) -> [FlagsJSON]? {
        guard case .array(let elements) = node.value else {
            problem(node, field, "must be an array, not \(node.kind)")
            return nil
        }
        return elements
    }

    mutating func string(_ node: FlagsJSON, at field: String) -> String? {
        guard case .string(let text) = node.value else {
            problem(node, field, "must be a string, not \(node.kind)")
            return nil
        }
        return text
    }

    /// A string, or an array of one or more strings.
    mutating func strings(_ node: FlagsJSON, at field: String) -> [String]? {
        if case .string(let text) = node.value { return [text] }
        guard case .array(let elements) = node.value, !elements.isEmpty else {
            problem(node, field, "must be a string or a non-empty array of strings, not \(node.kind)")
            return nil
        }
        var texts: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = string(element, at: "\(field)[\(index)]") else { return nil }
            texts.append(text)
        }
        return texts
    }

    /// A name for a region or cohort: 1 to 32 letters, digits, `-` and `_` (it becomes a metric label).
    mutating func name(_ node: FlagsJSON, at field: String) -> String? {
        guard let text = string(node, at: field) else { return nil }
        let allowed = text.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                || $0 == 0x5F
        }
        guard allowed, (1...32).contains(text.utf8.count) else {
            problem(node, field, "must be 1 to 32 letters, digits, '-' or '_', not \"\(text.prefix(40))\"")
            return nil
        }
        return text
    }

    mutating func number(_ node: FlagsJSON, at field: String, in range: ClosedRange<Double>) -> Double? {
        guard case .number(let value) = node.value else {
            problem(node, field, "must be a number, not \(node.kind)")
            return nil
        }
        guard range.contains(value) else {
            problem(node, field, "must be between \(format(range.lowerBound)) and \(format(range.upperBound))")
            return nil
        }
        return value
    }

    mutating func integer(_ node: FlagsJSON, at field: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = number(node, at: field, in: Double(range.lowerBound)...Double(range.upperBound)) else {
            return nil
        }
        guard value == value.rounded() else {
            problem(node, field, "must be a whole number")
            return nil
        }
        return Int(value)
    }

    mutating func choice<Value: RawRepresentable & CaseIterable>(
        _ node: FlagsJSON, at field: String, _ type: Value.Type
    ) -> Value? where Value.RawValue == String {
        guard let text = string(node, at: field) else { return nil }
        guard let value = Value(rawValue: text) else {
            let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
            problem(node, field, "must be one of \(names), not \"\(text.prefix(40))\"")
            return nil
        }
        return value
    }

    mutating func problem(_ node: FlagsJSON, _ field: String, _ message: String) {
        problems.append(FlagsProblem(line: node.line, field: field, message: message))
    }

    func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
