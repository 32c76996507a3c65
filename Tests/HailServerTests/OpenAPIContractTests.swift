import Foundation
import HailProtocol
import Testing

/// Keeps `docs/openapi.yaml` true to the code: routes, idempotency headers, error codes, close codes, frames.
@Suite("OpenAPI contract")
struct OpenAPIContractTests {
    /// The HTTP methods OpenAPI allows as keys of a path item.
    static let operationKeys: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    /// The other keys a path item may hold.
    static let pathItemKeys: Set<String> = ["summary", "description", "parameters", "servers", "$ref"]

    @Test func everyRouteIsDocumentedAndNothingElse() throws {
        let spec = try OpenAPISpec.load()
        let documented = Set(spec.operations.map(\.signature))
        let implemented = Set(Routes.all.map { "\($0.method.rawValue) \($0.template)" })
        let missingFromSpec = implemented.subtracting(documented).sorted()
        let missingFromRoutes = documented.subtracting(implemented).sorted()
        #expect(missingFromSpec.isEmpty, "in Routes.all but missing from docs/openapi.yaml: \(missingFromSpec)")
        #expect(missingFromRoutes.isEmpty, "in docs/openapi.yaml but missing from Routes.all: \(missingFromRoutes)")
        #expect(spec.operations.count == Routes.all.count, "docs/openapi.yaml has \(spec.operations.count) operations")
    }

    @Test func operationsNameTheirRouteAccessAndWebSocket() throws {
        let spec = try OpenAPISpec.load()
        for route in Routes.all {
            guard let operation = spec.operation(for: route) else {
                Issue.record("docs/openapi.yaml has no operation for \(route) (in Routes.all)")
                continue
            }
            let context = "\(route) in docs/openapi.yaml"
            #expect(operation.node["operationId"]?.value == route.name, "\(context): operationId must be \(route.name)")
            #expect(
                operation.node["x-hail-access"]?.value == route.access.rawValue,
                "\(context): x-hail-access must be \(route.access.rawValue)")
            let webSocket = operation.node["x-hail-websocket"]?.value == "true"
            #expect(
                webSocket == route.isWebSocket,
                "\(context): x-hail-websocket must be \(route.isWebSocket ? "true" : "absent"), as in Routes")
            let pathNames = Set(try spec.parameters(of: operation).filter { $0.location == "path" }.map(\.name))
            #expect(
                pathNames == Set(route.parameterNames),
                "\(context): path parameters \(pathNames.sorted()) but the template has \(route.parameterNames)")
        }
    }

    @Test func idempotencyKeyHeaderIsDocumentedExactlyWhereRequired() throws {
        let spec = try OpenAPISpec.load()
        for route in Routes.all {
            guard let operation = spec.operation(for: route) else {
                Issue.record("docs/openapi.yaml has no operation for \(route) (in Routes.all)")
                continue
            }
            let key = try spec.parameters(of: operation).first {
                $0.location == "header" && $0.name.lowercased() == HailHeader.idempotencyKey.lowercased()
            }
            if route.requiresIdempotencyKey {
                #expect(
                    key != nil,
                    "\(route) requires \(HailHeader.idempotencyKey) (Routes) but docs/openapi.yaml does not document it"
                )
                #expect(
                    key == nil || key?.required == true, "\(route): the \(HailHeader.idempotencyKey) must be required")
            } else {
                #expect(
                    key == nil,
                    "\(route) documents \(HailHeader.idempotencyKey) in docs/openapi.yaml but Routes does not require it"
                )
            }
        }
    }

    @Test func errorCodeEnumMatchesTheKnownCodes() throws {
        let spec = try OpenAPISpec.load()
        let schema = try need(
            spec.root.path("components", "schemas", "ErrorCode"),
            "docs/openapi.yaml has no components.schemas.ErrorCode")
        let documented = try schema.scalarItems("enum")
        let known = APIError.Code.known.map(\.rawValue)
        let missingFromSpec = known.filter { !documented.contains($0) }
        let unknown = documented.filter { !known.contains($0) }
        #expect(
            missingFromSpec.isEmpty, "in APIError.Code.known but missing from the ErrorCode enum: \(missingFromSpec)")
        #expect(unknown.isEmpty, "in the ErrorCode enum but not in APIError.Code.known: \(unknown)")
        #expect(documented.count == Set(documented).count, "the ErrorCode enum repeats a code: \(documented)")
    }

    @Test func closeCodeEnumMatchesTheCodesTheServerSends() throws {
        let spec = try OpenAPISpec.load()
        let schema = try need(
            spec.root.path("components", "schemas", "WebSocketCloseCode"),
            "docs/openapi.yaml has no components.schemas.WebSocketCloseCode")
        let documented = try schema.scalarItems("enum")
        let sent = WebSocketCloseCode.all.map { String($0.rawValue) }
        let missingFromSpec = sent.filter { !documented.contains($0) }
        let unknown = documented.filter { !sent.contains($0) }
        #expect(missingFromSpec.isEmpty, "in WebSocketCloseCode.all but missing from the spec: \(missingFromSpec)")
        #expect(unknown.isEmpty, "in the spec's WebSocketCloseCode enum but not in WebSocketCloseCode.all: \(unknown)")
    }

    @Test func frameSchemasListEveryFrameType() throws {
        let spec = try OpenAPISpec.load()
        let directions: [(schema: String, types: [String])] = [
            ("RiderServerFrame", RiderServerFrame.types),
            ("DriverClientFrame", DriverClientFrame.types),
            ("DriverServerFrame", DriverServerFrame.types),
            ("OperatorServerFrame", OperatorServerFrame.types),
        ]
        for (name, types) in directions {
            let mapping = try need(
                spec.root.path("components", "schemas", name, "discriminator", "mapping"),
                "\(name) has no discriminator mapping in docs/openapi.yaml")
            let documented = mapping.keys
            #expect(
                documented == types,
                "\(name): the spec maps \(documented) but the code's types are \(types)")
            for entry in mapping.children {
                let target = try need(entry.value, "\(name).\(entry.key ?? "?") maps to nothing")
                #expect(spec.resolve(target) != nil, "\(name).\(entry.key ?? "?") maps to \(target), which is missing")
            }
        }
    }

    @Test func everyReferenceResolves() throws {
        let spec = try OpenAPISpec.load()
        var broken: [String] = []
        func visit(_ node: YAMLNode) {
            if node.key == "$ref", let target = node.value, spec.resolve(target) == nil {
                broken.append("line \(node.line): \(target)")
            }
            node.children.forEach(visit)
        }
        visit(spec.root)
        #expect(broken.isEmpty, "docs/openapi.yaml has references to nothing: \(broken)")
    }

    @Test func theReaderParsesItsSubsetAndRefusesTheRest() throws {
        let text = """
            a:
              'b c': "d"
              e: |
                free: text
                  deeper
              f:
                - g
                - h: i
                  j: [k]
            # comment
            l: 'it''s'
            m:
              - n
              - o
            """
        let root = try YAMLReader.parse(text)
        #expect(root.keys == ["a", "l", "m"])
        #expect(root.path("a", "b c")?.value == "d")
        #expect(root.path("a", "e")?.value == "|")
        #expect(try root.scalarItems("m") == ["n", "o"])
        #expect(throws: YAMLReader.Failure.self) { try root.path("a")?.scalarItems("f") }
        #expect(root.path("a", "f")?.items.last?["j"]?.value == "[k]")
        #expect(root["l"]?.value == "it's")
        let refused: [(String, String)] = [
            ("a:\n\tb: c", "tab"),
            ("a:\n   b: c", "odd indentation"),
            ("a:\n    b: c", "skipped level"),
            ("a: b\na: c", "duplicate key"),
            ("a: b\n  c: d", "block under a scalar"),
            ("a:", "key with nothing"),
            ("a:\n  - b\n  c: d", "items mixed with keys"),
            ("a: 'b", "unterminated quote"),
            ("a: b # c", "trailing comment"),
        ]
        for (bad, why) in refused {
            #expect(throws: YAMLReader.Failure.self, "should refuse a \(why)") { try YAMLReader.parse(bad) }
        }
    }
}

/// `value`, or a thrown `YAMLReader.Failure` with `message` (short, unlike `#require`'s dump of the spec).
private func need<T>(_ value: T?, _ message: String) throws -> T {
    guard let value else { throw YAMLReader.Failure(line: 0, message: message) }
    return value
}

/// `docs/openapi.yaml`, read with `YAMLReader`, with the lookups the tests need.
private struct OpenAPISpec {
    /// One operation: a method under a path.
    struct Operation {
        /// `GET`, `POST`, ...
        var method: String
        /// The path template, such as `/v1/trips/{id}`.
        var path: String
        /// The operation's node.
        var node: YAMLNode
        /// The path item's node (for path-level parameters).
        var pathItem: YAMLNode

        /// `POST /v1/trips/{id}/cancel`, as `Route.description` spells it.
        var signature: String { "\(method) \(path)" }
    }

    /// A parameter after following its `$ref`.
    struct Parameter {
        /// Its name.
        var name: String
        /// Where it goes: path, query, header or cookie.
        var location: String
        /// True when `required: true`.
        var required: Bool
    }

    /// The whole document.
    var root: YAMLNode
    /// Every operation, in file order.
    var operations: [Operation]

    /// Reads and checks the shape of the spec next to this package.
    static func load() throws -> OpenAPISpec {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/openapi.yaml")
        let root = try YAMLReader.parse(String(contentsOf: url, encoding: .utf8))
        let version = root["openapi"]?.value ?? "none"
        #expect(version.hasPrefix("3.1."), "docs/openapi.yaml must be OpenAPI 3.1, not \(version)")
        let paths = try need(root["paths"], "docs/openapi.yaml has no paths")
        var operations: [Operation] = []
        for item in paths.children {
            let path = try need(item.key, "line \(item.line): paths must be a mapping")
            #expect(path.hasPrefix("/"), "line \(item.line): path \(path) must start with /")
            for entry in item.children {
                let key = entry.key ?? ""
                if OpenAPIContractTests.operationKeys.contains(key) {
                    operations.append(Operation(method: key.uppercased(), path: path, node: entry, pathItem: item))
                } else {
                    #expect(
                        OpenAPIContractTests.pathItemKeys.contains(key),
                        "line \(entry.line): \(key) is neither a method nor a path item field")
                }
            }
        }
        return OpenAPISpec(root: root, operations: operations)
    }

    /// The operation documenting `route`, if any.
    func operation(for route: Route) -> Operation? {
        operations.first { $0.method == route.method.rawValue && $0.path == route.template }
    }

    /// The node a local reference such as `#/components/parameters/IdempotencyKey` names.
    func resolve(_ reference: String) -> YAMLNode? {
        guard reference.hasPrefix("#/") else { return nil }
        let names = reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        return root.path(names)
    }

    /// The operation's parameters and its path item's, references followed.
    func parameters(of operation: Operation) throws -> [Parameter] {
        let items = (operation.pathItem["parameters"]?.items ?? []) + (operation.node["parameters"]?.items ?? [])
        return try items.map { item in
            var node = item
            if let reference = item["$ref"]?.value {
                node = try need(resolve(reference), "line \(item.line): \(reference) names nothing")
            }
            let name = try need(node["name"]?.value, "line \(node.line): a parameter without a name")
            let place = try need(node["in"]?.value, "line \(node.line): parameter \(name) without `in`")
            return Parameter(name: name, location: place, required: node["required"]?.value == "true")
        }
    }
}

/// A node of the YAML subset the spec is written in: a mapping entry, a sequence item or a bare scalar.
private struct YAMLNode {
    /// The mapping key, or nil for a sequence item or a bare scalar.
    var key: String?
    /// The inline value (unquoted), `|` or `>` for a block scalar, or nil when a block follows.
    var value: String?
    /// True for a `- ` sequence item.
    var isItem: Bool
    /// The entries or items below.
    var children: [YAMLNode]
    /// The 1-based line it starts on.
    var line: Int

    /// The child entry with this key.
    subscript(key: String) -> YAMLNode? { children.first { $0.key == key } }

    /// The node at this chain of keys.
    func path(_ keys: String...) -> YAMLNode? { path(keys) }

    /// The node at this chain of keys.
    func path(_ keys: [String]) -> YAMLNode? {
        var node: YAMLNode? = self
        for key in keys { node = node?[key] }
        return node
    }

    /// The sequence items below.
    var items: [YAMLNode] { children.filter(\.isItem) }

    /// The keys of the mapping below, in order.
    var keys: [String] { children.compactMap(\.key) }

    /// The scalar items of the sequence under `key`, failing on anything else.
    func scalarItems(_ key: String) throws -> [String] {
        let sequence = try need(self[key], "line \(line): no \(key)")
        return try sequence.children.map { item in
            guard item.isItem, item.children.count == 1, item.children[0].key == nil, let value = item.children[0].value
            else { throw YAMLReader.Failure(line: item.line, message: "\(key) must be a list of scalars") }
            return value
        }
    }
}

/// A strict line-based reader for the YAML subset of `docs/openapi.yaml`: block mappings and sequences
/// indented by exactly two spaces, plain or quoted scalars, flow values kept as text, `|`/`>` block
/// scalars skipped, whole-line comments. Anything else is refused with its line number.
private enum YAMLReader {
    /// Why the text is not in the subset.
    struct Failure: Error, CustomStringConvertible {
        /// The 1-based line.
        var line: Int
        /// What is wrong.
        var message: String

        /// `line 3: duplicate key a`.
        var description: String { line > 0 ? "line \(line): \(message)" : message }
    }

    private struct Line {
        var indent: Int
        var text: String
        var number: Int
        var isItem: Bool
    }

    /// Parses `text` into a root node whose children are the top-level entries.
    static func parse(_ text: String) throws -> YAMLNode {
        if text.utf8.contains(13) { throw Failure(line: 1, message: "carriage returns are not allowed") }
        let lines = try logicalLines(text)
        var index = 0
        let children = try block(lines, &index, indent: 0)
        return YAMLNode(key: nil, value: nil, isItem: false, children: children, line: 0)
    }

    /// Physical lines to logical ones: comments and block-scalar text dropped, `- x` split into an item and `x`.
    private static func logicalLines(_ text: String) throws -> [Line] {
        var result: [Line] = []
        var blockScalarIndent: Int?
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let indent = raw.prefix { $0 == " " }.count
            let content = raw.dropFirst(indent)
            if let parent = blockScalarIndent {
                if content.isEmpty || indent > parent { continue }
                blockScalarIndent = nil
            }
            if raw.contains("\t") { throw Failure(line: number, message: "tabs are not allowed") }
            if content.isEmpty || content.hasPrefix("#") { continue }
            if content.hasSuffix(" ") { throw Failure(line: number, message: "trailing spaces") }
            guard indent % 2 == 0 else { throw Failure(line: number, message: "indentation must be even") }
            var level = indent
            var rest = content
            while rest == "-" || rest.hasPrefix("- ") {
                result.append(Line(indent: level, text: "", number: number, isItem: true))
                rest = rest.dropFirst(rest == "-" ? 1 : 2)
                level += 2
                if rest.hasPrefix(" ") { throw Failure(line: number, message: "one space after `-`") }
            }
            guard !rest.isEmpty else { continue }
            result.append(Line(indent: level, text: String(rest), number: number, isItem: false))
            let (key, value) = try entry(String(rest), line: number)
            if key != nil, let value, ["|", "|-", ">", ">-"].contains(value) { blockScalarIndent = level }
        }
        return result
    }

    /// The nodes of one block at `indent`, consuming lines from `index`.
    private static func block(_ lines: [Line], _ index: inout Int, indent: Int) throws -> [YAMLNode] {
        var nodes: [YAMLNode] = []
        var keys: Set<String> = []
        while index < lines.count, lines[index].indent >= indent {
            let line = lines[index]
            guard line.indent == indent else {
                throw Failure(line: line.number, message: "indented \(line.indent) where \(indent) was expected")
            }
            index += 1
            var node = YAMLNode(key: nil, value: nil, isItem: true, children: [], line: line.number)
            if !line.isItem {
                (node.key, node.value) = try entry(line.text, line: line.number)
                node.isItem = false
                if let key = node.key, !keys.insert(key).inserted {
                    throw Failure(line: line.number, message: "duplicate key \(key)")
                }
            }
            if let first = nodes.first, first.isItem != node.isItem || (first.key == nil) != (node.key == nil) {
                throw Failure(line: line.number, message: "a block mixes items, keys and scalars")
            }
            let opensBlock = node.isItem || (node.key != nil && node.value == nil)
            if index < lines.count, lines[index].indent > indent {
                guard opensBlock else {
                    throw Failure(line: line.number, message: "a scalar cannot have a block below")
                }
                node.children = try block(lines, &index, indent: indent + 2)
            } else if opensBlock {
                throw Failure(line: line.number, message: "an empty value (write it explicitly)")
            }
            nodes.append(node)
        }
        if nodes.count > 1, nodes.contains(where: { !$0.isItem && $0.key == nil }) {
            throw Failure(line: nodes[1].line, message: "a bare scalar must stand alone")
        }
        return nodes
    }

    /// Splits `key: value`, `key:` or a bare scalar; quoted keys and values are unquoted.
    private static func entry(_ text: String, line: Int) throws -> (key: String?, value: String?) {
        if let quote = text.first, quote == "'" || quote == "\"" {
            let (scalar, rest) = try quoted(text, line: line)
            if rest.isEmpty { return (nil, scalar) }
            guard rest == ":" || rest.hasPrefix(": ") else {
                throw Failure(line: line, message: "text after a quoted scalar")
            }
            return (scalar, try value(String(rest.dropFirst()), line: line))
        }
        if let colon = text.range(of: ": ") {
            return (String(text[..<colon.lowerBound]), try value(String(text[colon.upperBound...]), line: line))
        }
        if text.hasSuffix(":") { return (String(text.dropLast()), nil) }
        return (nil, try value(text, line: line))
    }

    /// A value after its key: nil when empty, unquoted when quoted, refused with a trailing comment.
    private static func value(_ raw: String, line: Int) throws -> String? {
        let text = raw.drop { $0 == " " }
        if text.isEmpty { return nil }
        if text.first == "'" || text.first == "\"" {
            let (scalar, rest) = try quoted(String(text), line: line)
            guard rest.isEmpty else { throw Failure(line: line, message: "text after a quoted scalar") }
            return scalar
        }
        if text.contains(" #") { throw Failure(line: line, message: "comments after a value are not supported") }
        return String(text)
    }

    /// The quoted scalar at the start of `text` and what follows it.
    private static func quoted(_ text: String, line: Int) throws -> (String, Substring) {
        let quote = text.first!
        var scalar = ""
        var rest = text.dropFirst()
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == quote {
                if quote == "'", rest.first == "'" {
                    scalar.append("'")
                    rest = rest.dropFirst()
                    continue
                }
                return (scalar, rest)
            }
            if quote == "\"", character == "\\" {
                throw Failure(line: line, message: "escapes in double-quoted scalars are not supported")
            }
            scalar.append(character)
        }
        throw Failure(line: line, message: "unterminated quoted scalar")
    }
}
