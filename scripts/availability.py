#!/usr/bin/env python3
"""Fails when a module an app product links uses an API newer than the package's declared iOS or macOS minimum.

Swift on Linux enforces no Apple availability, so a Linux-only CI would let an iOS 18 call into an iOS 17
package unnoticed. This check gets the facts from the toolchain instead of from a list of names:

- what each module references: the compiler's own type-checked AST (`swiftc -dump-ast -dump-ast-format json`,
  run with the exact arguments `swift build` used, from .build/debug.yaml), which names every referenced
  declaration by its USR and every expression's type by its mangled name;
- when each declaration appeared on Apple platforms: the toolchain's modules as the compiler reads them
  (`swift-symbolgraph-extract` over each module that ships a .swiftinterface: Swift, _Concurrency,
  Synchronization, _StringProcessing, Observation, RegexBuilder, Distributed, ...), whose symbols carry
  `@available(macOS 15.0, iOS 18.0, ...)` exactly as Apple's SDK declares them.

A reference inside `if #available(...)`, after `guard #available(...) else`, or in a declaration marked
`@available(iOS N, macOS M, *)` counts against that version instead of the package's minimum.

Not covered (said in the README): Foundation, FoundationNetworking and Dispatch (on Linux they are
swift-corelibs binaries with no Apple availability), and code in `#if` branches this Linux build does not
compile (CoreLocation, UIKit, Darwin). HailClient's URLSession WebSocket transport, what an app ships, has no such
branch: it is compiled and checked here like the rest. Which C libraries the app products link is
scripts/app_closure.py's check.

Usage: scripts/availability.py [--self-test]   (after `swift build`, from the repository root)
"""

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, ".build")
SWIFT_LIB = "/opt/swift/usr/lib/swift/linux"
TRIPLE = "x86_64-unknown-linux-gnu"
# The products an iOS app adds (ARCHITECTURE.md, "The app cores"); their whole target closure is checked.
APP_PRODUCTS = ["HailRider", "HailDriver", "HailClient", "HailAppSeams", "HailAppStore", "HailAppDoubles", "HailProtocol"]
APPLE = {"ios": "iOS", "macos": "macOS"}
FIXTURE = os.path.join(ROOT, "scripts", "availability-fixtures", "Planted.swift")


def version(text):
    """`"18.0"` as `(18,)`: trailing zeros dropped, so 17 and 17.0.0 compare equal."""
    return strip_zeros(int(part) for part in str(text).split(".")) if text else (0,)


def show(ver):
    return ".".join(str(part) for part in (tuple(ver) + (0,))[: max(2, len(ver))])


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


# The toolchain's availability data, USR -> {platform: introduced}, cached per compiler version.


def swift_version():
    return run(["swiftc", "--version"]).stdout.strip()


def availability_db():
    key = re.sub(r"[^A-Za-z0-9.]+", "-", swift_version())[:80]
    cache = os.path.join(BUILD, "availability", key + ".json")
    if os.path.exists(cache):
        with open(cache) as file:
            return json.load(file)
    modules = []
    for entry in sorted(os.listdir(SWIFT_LIB)):
        if not entry.endswith(".swiftmodule"):
            continue
        path = os.path.join(SWIFT_LIB, entry)
        if os.path.isdir(path) and any(
            name.endswith(".swiftinterface") and ".private." not in name for name in os.listdir(path)
        ):
            modules.append(entry[: -len(".swiftmodule")])
    symbols = {}
    # The oldest overload of each name: where an older one exists (FixedWidthInteger's default `&*` beside its
    # iOS 18 requirement of that name), Apple's compiler, which ranks overloads the deployment target lacks below
    # the others, picks that one; Linux's, which knows no Apple deployment target, may name the newer.
    oldest = {}
    covered = []
    with tempfile.TemporaryDirectory() as out:
        for module in modules:
            result = run(
                ["swift-symbolgraph-extract", "-module-name", module, "-target", TRIPLE, "-output-dir", out,
                 "-minimum-access-level", "public"]
            )
            if result.returncode != 0:
                continue
            covered.append(module)
        for name in os.listdir(out):
            with open(os.path.join(out, name)) as file:
                graph = json.load(file)
            module = graph["module"]["name"]
            for symbol in graph["symbols"]:
                introduced = {}
                for entry in symbol.get("availability", []):
                    platform = {"iOS": "ios", "macOS": "macos"}.get(entry.get("domain"))
                    if platform and "introduced" in entry:
                        found = entry["introduced"]
                        introduced[platform] = [found.get("major", 0), found.get("minor", 0), found.get("patch", 0)]
                name = ".".join(symbol["pathComponents"])
                overloads = oldest.setdefault(module + "." + name, {"ios": [9999], "macos": [9999]})
                for platform in APPLE:
                    overloads[platform] = min(overloads[platform], introduced.get(platform, [0]))
                if introduced:
                    symbols[symbol["identifier"]["precise"]] = {
                        "module": module,
                        "name": name,
                        "kind": symbol["kind"]["identifier"],
                        **introduced,
                    }
    db = {"covered": covered, "symbols": symbols, "oldest": oldest}
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache, "w") as file:
        json.dump(db, file)
    return db


# The package: app closure and declared minimums.


def package():
    result = run(["swift", "package", "dump-package"], cwd=ROOT)
    if result.returncode != 0:
        sys.exit("availability: swift package dump-package failed:\n" + result.stderr)
    return json.loads(result.stdout)


def minimums(manifest):
    found = {item["platformName"]: version(item["version"]) for item in manifest["platforms"]}
    return {platform: found.get(platform, (0,)) for platform in APPLE}


def app_closure(manifest, platform_names=tuple(APPLE), swift_only=True):
    """Targets a build of the app products for `platform_names` compiles (dependencies conditional on other
    platforms left out); Swift targets only unless `swift_only` is false."""
    targets = {target["name"]: target for target in manifest["targets"]}
    products = {product["name"]: product for product in manifest["products"]}
    pending = [name for product in APP_PRODUCTS for name in products[product]["targets"]]
    seen = set()
    while pending:
        name = pending.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            (kind, value), = dependency.items()
            target_name, condition = value[0], value[1] if len(value) > 1 else None
            platforms = (condition or {}).get("platformNames") if condition else None
            if platforms and not any(platform in platform_names for platform in platforms):
                continue
            pending.append(target_name)
    return sorted(name for name in seen if not swift_only or targets[name]["type"] != "system")


# The compiler's view of one module.


def compile_args(module):
    """The arguments `swift build` compiled `module` with, from the build manifest."""
    with open(os.path.join(BUILD, "debug.yaml")) as file:
        lines = file.read().split("\n")
    header = re.compile(r'^  "C\.' + re.escape(module) + r'(-[^"]*)?-debug\.module":$')
    for index, line in enumerate(lines):
        if header.match(line):
            for follow in lines[index + 1 : index + 12]:
                if follow.startswith("    args: "):
                    return json.loads(follow[len("    args: ") :])
    sys.exit(f"availability: no compile command for {module} in .build/debug.yaml; run `swift build` first")


DROP_ALONE = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-serialize-diagnostics",
              "-parseable-output", "-emit-objc-header", "-g", "-warnings-as-errors", "-enable-batch-mode"}
DROP_WITH_VALUE = {"-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path"}


def dump_module(args, out_dir):
    """Runs the type checker over the module and returns {source path: AST JSON path}."""
    sources, kept = plain_args(args)
    return dump_sources(sources, kept, out_dir)


def plain_args(args):
    """The sources and the flags of a build command, without its outputs and incremental-build bookkeeping."""
    kept = []
    sources = []
    skip, skip_kind = False, "drop"
    for arg in args[1:]:
        if skip:
            skip = False
            if skip_kind == "keep":
                kept.append(arg)
            continue
        if arg in ("-Xcc", "-Xfrontend"):
            kept.append(arg)
            skip, skip_kind = True, "keep"
            continue
        if arg in DROP_WITH_VALUE:
            skip, skip_kind = True, "drop"
            continue
        if arg in DROP_ALONE:
            continue
        if arg.startswith("@"):
            with open(arg[1:]) as file:
                sources = [line.strip() for line in file if line.strip()]
            continue
        kept.append(arg)
    return sources, kept


def dump_sources(sources, flags, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    outputs = {source: os.path.join(out_dir, f"{index}.json") for index, source in enumerate(sources)}
    file_map = os.path.join(out_dir, "output-file-map.json")
    with open(file_map, "w") as file:
        json.dump({source: {"ast-dump": path} for source, path in outputs.items()}, file)
    command = ["swiftc", "-dump-ast", "-dump-ast-format", "json", "-suppress-warnings", "-output-file-map",
               file_map] + flags + sources
    result = run(command)
    if result.returncode != 0:
        sys.exit("availability: the type checker failed:\n" + " ".join(command) + "\n" + result.stderr[-4000:])
    return outputs


# Walking the AST.


def raised(floor, queries):
    """`floor` raised by the platform versions an `@available` or `#available` names."""
    new = dict(floor)
    for platform, ver in queries:
        if platform in new and ver > new[platform]:
            new[platform] = ver
    return new


def available_attrs(node):
    found = []
    for attr in node.get("attrs", []) or []:
        if isinstance(attr, dict) and attr.get("_kind") == "available_attr" and attr.get("introduced"):
            platform = {"iOS": "ios", "macOS": "macos"}.get(attr.get("domain"))
            if platform:
                found.append((platform, version(attr["introduced"])))
    return found


def availability_queries(conditions):
    """Platform versions an `if`/`guard` condition list proves with `#available`."""
    found = []
    for condition in conditions or []:
        if isinstance(condition, dict) and condition.get("_kind") == "#available":
            for query in condition.get("queries", []):
                platform = {"iOS": "ios", "macOS": "macos"}.get(query.get("domain"))
                if platform and query.get("version"):
                    found.append((platform, version(query["version"])))
    return found


class Checker:
    def __init__(self, db, floors):
        self.symbols = db["symbols"]
        self.oldest = db["oldest"]
        self.floors = floors
        self.findings = set()
        # Nominal types newer than the floor, found inside mangled type names (`$s15Synchronization5MutexV...`).
        newer = {
            usr[2:]: usr
            for usr, info in self.symbols.items()
            if info["kind"] in ("swift.struct", "swift.class", "swift.enum", "swift.protocol")
            and re.match(r"s:(s|[0-9])", usr)  # not the short standard substitutions (`ScF`), too ambiguous
            and any(version_of(info, platform) > floors[platform] for platform in APPLE)
        }
        self.type_pattern = re.compile("|".join(re.escape(key) for key in sorted(newer, key=len, reverse=True)))
        self.type_usrs = newer
        self.type_cache = {}

    def check_usr(self, usr, floor, where, desugared=False):
        info = self.symbols.get(usr)
        if not info:
            return
        # `for await` calls `next(isolation:)` (iOS 18) where the target has it and `next()` where it does not:
        # the compiler's choice, which a Linux compile always makes the new way.
        if desugared and info["name"].endswith("next(isolation:)"):
            return
        oldest = self.oldest.get(info["module"] + "." + info["name"], {})
        for platform, label in APPLE.items():
            needed = version_of(info, platform)
            if needed > floor[platform] and strip_zeros(oldest.get(platform, [0])) > floor[platform]:
                self.findings.add((where[0], where[1], f"{info['module']}.{info['name']}", label, show(needed)))

    def check_type(self, mangled, floor, where):
        if mangled not in self.type_cache:
            self.type_cache[mangled] = {self.type_usrs[m] for m in self.type_pattern.findall(mangled)}
        for usr in self.type_cache[mangled]:
            self.check_usr(usr, floor, where)

    def walk_file(self, path, source):
        with open(path) as file:
            tree = json.load(file)
        with open(source, "rb") as file:
            text = file.read()
        starts = [0] + [index + 1 for index, byte in enumerate(text) if byte == 10]
        relative = os.path.relpath(source, ROOT)

        def line_of(offset):
            low, high = 0, len(starts) - 1
            while low < high:
                middle = (low + high + 1) // 2
                if starts[middle] <= offset:
                    low = middle
                else:
                    high = middle - 1
            return low + 1

        # An explicit stack (the trees are deep): (node, floor, nearest offset).
        stack = [(tree, dict(self.floors), 0, False)]
        while stack:
            node, floor, offset, desugared = stack.pop()
            if isinstance(node, list):
                guarded = dict(floor)
                # A `guard #available` raises the floor for the statements after it in the same block.
                for item in node:
                    stack.append((item, guarded, offset, desugared))
                    if isinstance(item, dict) and item.get("_kind") == "guard_stmt":
                        guarded = raised(guarded, availability_queries(item.get("conditions")))
                continue
            if not isinstance(node, dict):
                continue
            where_range = node.get("range")
            if isinstance(where_range, dict) and "start" in where_range:
                offset = where_range["start"]
            floor = raised(floor, available_attrs(node))
            kind = node.get("_kind")
            where = (relative, line_of(offset))
            usr = node.get("decl_usr")
            if usr:
                self.check_usr(usr, floor, where, desugared)
            for key in ("type", "interface_type"):
                value = node.get(key)
                if isinstance(value, str) and value.startswith("$s"):
                    self.check_type(value, floor, where)
            for key, value in node.items():
                if not isinstance(value, (dict, list)):
                    continue
                child_floor = floor
                if kind == "if_stmt" and key == "then_stmt":
                    child_floor = raised(floor, availability_queries(node.get("conditions")))
                stack.append((value, child_floor, offset, desugared or (kind == "for_each_stmt" and key == "next_call")))


def version_of(info, platform):
    return strip_zeros(info[platform]) if platform in info else (0,)


def strip_zeros(ver):
    ver = tuple(ver)
    while len(ver) > 1 and ver[-1] == 0:
        ver = ver[:-1]
    return ver


def report(findings):
    for path, line, name, platform, needed in sorted(findings):
        print(f"{path}:{line}: {name} needs {platform} {needed}")


def self_test(db):
    """The fixture's planted uses are reported, exactly, and its guarded ones are not."""
    floors = {"ios": (17,), "macos": (14,)}
    checker = Checker(db, floors)
    with tempfile.TemporaryDirectory() as out:
        outputs = dump_sources([FIXTURE], ["-module-name", "Planted", "-parse-as-library", "-swift-version", "6"], out)
        for source, path in outputs.items():
            checker.walk_file(path, source)
    found = {(line, name, platform) for _, line, name, platform, _ in checker.findings}
    # `// expect: NAME PLATFORM` lines name what the next line of code must be reported for.
    expected = set()
    waiting = []
    with open(FIXTURE) as file:
        for number, text in enumerate(file, start=1):
            match = re.match(r"\s*// expect: (\S+) (iOS|macOS)$", text.rstrip("\n"))
            if match:
                waiting.append((match.group(1), match.group(2)))
            elif waiting:
                expected.update((number, name, platform) for name, platform in waiting)
                waiting = []
    if found != expected:
        print("availability self-test FAILED")
        for item in sorted(expected - found):
            print("  missed:", item)
        for item in sorted(found - expected):
            print("  unexpected:", item)
        return 1
    print(f"availability self-test: the fixture's {len(expected)} planted uses reported, its guarded ones not")
    return 0


def main():
    db = availability_db()
    if "--self-test" in sys.argv:
        return self_test(db)
    manifest = package()
    floors = minimums(manifest)
    modules = app_closure(manifest)
    checker = Checker(db, floors)
    with tempfile.TemporaryDirectory() as out:
        for module in modules:
            outputs = dump_module(compile_args(module), os.path.join(out, module))
            for source, path in outputs.items():
                checker.walk_file(path, source)
    covered = ", ".join(db["covered"])
    minimum = ", ".join(f"{APPLE[p]} {show(v)}" for p, v in floors.items())
    if checker.findings:
        report(checker.findings)
        print(f"availability: {len(checker.findings)} use(s) newer than the package's minimum ({minimum}) in the "
              "app products' modules; raise the minimum, use an older API, or guard with `if #available`")
        return 1
    print(f"availability: {len(modules)} app modules ({', '.join(modules)}) use nothing newer than {minimum} "
          f"(declarations checked from {covered}), HailClient's URLSession transport included")
    return 0


if __name__ == "__main__":
    sys.exit(main())
