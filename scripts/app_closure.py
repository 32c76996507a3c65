#!/usr/bin/env python3
"""Fails when an app product's build needs a C system library beyond SQLite's, or an app-core test target needs a
module outside the app products.

What a build links is read from SwiftPM itself: `swift package describe --type json` gives every target's
dependencies and kind (a `system-target` is a C library found through pkg-config), and `swift package
dump-package` adds the platform conditions describe leaves out (CSQLite is a Linux-only dependency of
HailStorage). For each app product (scripts/availability.py's APP_PRODUCTS) its target closure is walked twice:

- Linux: the only system library allowed is CSQLite (SQLite's). The WebSocket transport an app links is
  URLSession's; libwebsockets' (HailNetTransport) is plugged in by the `hail` command, the city and the tests.
- Apple (iOS, macOS): none; SQLite comes from the SDK's SQLite3 module.

The app-core unit test targets (APP_TEST_TARGETS) may reach only the app products' modules, HailTestSupport and
each other: no HailNet, no HailServer, so they build and run on macOS (.github/workflows/apple.yml).

Usage: scripts/app_closure.py [--self-test]   (from the repository root; the self-test runs on the planted
package in scripts/app-closure-fixtures/ and must report exactly what expected.txt lists)
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from availability import APP_PRODUCTS  # noqa: E402  (the one list of app products)

APP_TEST_TARGETS = ["HailRiderTests", "HailDriverTests", "HailAppStoreTests", "HailClientTests", "HailArticleTests"]
TEST_SUPPORT = {"HailTestSupport"}
PLATFORMS = {"linux": ({"linux"}, {"CSQLite"}), "Apple": ({"ios", "macos"}, set())}
FIXTURES = os.path.join(ROOT, "scripts", "app-closure-fixtures")


def swift_json(args):
    result = subprocess.run(["swift", "package", *args], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"app_closure: swift package {' '.join(args)} failed:\n{result.stderr}")
    return json.loads(result.stdout)


def conditions(manifest):
    """{(target, dependency): platform names it is limited to} from dump-package; unconditional edges absent."""
    limited = {}
    for target in manifest["targets"]:
        for dependency in target["dependencies"]:
            (_, value), = dependency.items()
            condition = value[-1] if len(value) > 1 and isinstance(value[-1], dict) else None
            platforms = (condition or {}).get("platformNames")
            if platforms:
                limited[(target["name"], value[0])] = set(platforms)
    return limited


def closure(describe, limited, roots, platforms):
    """The targets a build of `roots` for `platforms` compiles: describe's dependencies, less those the manifest
    limits to other platforms."""
    targets = {target["name"]: target for target in describe["targets"]}
    seen, pending = set(), list(roots)
    while pending:
        name = pending.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        for dependency in targets[name].get("target_dependencies", []):
            only = limited.get((name, dependency))
            if only is None or only & platforms:
                pending.append(dependency)
    return seen


def problems(describe, manifest):
    limited = conditions(manifest)
    kinds = {target["name"]: target["type"] for target in describe["targets"]}
    products = {product["name"]: product["targets"] for product in describe["products"]}
    found = []
    app_modules = set()
    for product in APP_PRODUCTS:
        if product not in products:
            continue
        for label, (platforms, allowed) in PLATFORMS.items():
            reached = closure(describe, limited, products[product], platforms)
            app_modules |= reached
            for name in sorted(reached):
                if kinds[name] == "system-target" and name not in allowed:
                    found.append(f"{product} on {label} links the C system library {name}")
    allowed_for_tests = app_modules | TEST_SUPPORT | set(APP_TEST_TARGETS)
    for test in APP_TEST_TARGETS:
        if test not in kinds:
            continue
        reached = closure(describe, limited, [test], {"linux", "ios", "macos"})
        for name in sorted(reached - allowed_for_tests):
            found.append(f"{test} depends on {name}, outside the app products")
    return found


def self_test():
    with open(os.path.join(FIXTURES, "describe.json")) as file:
        describe = json.load(file)
    with open(os.path.join(FIXTURES, "dump-package.json")) as file:
        manifest = json.load(file)
    with open(os.path.join(FIXTURES, "expected.txt")) as file:
        expected = [line.rstrip("\n") for line in file if line.strip()]
    found = problems(describe, manifest)
    if sorted(found) != sorted(expected):
        print("app_closure self-test FAILED")
        for line in sorted(set(expected) - set(found)):
            print("  missed:", line)
        for line in sorted(set(found) - set(expected)):
            print("  unexpected:", line)
        return 1
    print(f"app_closure self-test: the planted package's {len(expected)} problems reported, nothing else")
    return 0


def main():
    if "--self-test" in sys.argv:
        return self_test()
    describe = swift_json(["describe", "--type", "json"])
    manifest = swift_json(["dump-package"])
    found = problems(describe, manifest)
    if found:
        for line in found:
            print("app_closure:", line)
        return 1
    products = [product for product in APP_PRODUCTS if any(p["name"] == product for p in describe["products"])]
    print(f"app_closure: {', '.join(products)} link no C system library on Apple platforms and only CSQLite on "
          f"Linux; {', '.join(APP_TEST_TARGETS)} depend on the app modules and HailTestSupport alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
