#!/usr/bin/env bash
# Builds the DocC documentation of the app cores (HailRider, HailDriver) and HailCore's tracking types with the
# toolchain's own docc, from symbol graphs that the toolchain's swift-symbolgraph-extract reads off the built
# modules; no SwiftPM plugin. Any DocC warning (a broken symbol link, say) fails the build.
#   bash scripts/docs.sh     (make docs; part of make test)
# Output: .build/docs/<Module>.doccarchive, each a static site (open its index.html through any web server).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODULES=(HailCore HailRider HailDriver)
BIN="$(dirname "$(command -v swift)")"
GRAPHS="$ROOT/.build/symbol-graphs"
OUT="$ROOT/.build/docs"

# The same build as `make build`, so nothing is rebuilt with other flags (a no-op when it is up to date).
swift build --build-tests -Xswiftc -warnings-as-errors >&2
MODULE_DIR="$(swift build --show-bin-path)/Modules"
TRIPLE="$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -n 1)"
mkdir -p "$OUT"
for module in "${MODULES[@]}"; do
    rm -rf "${GRAPHS:?}/$module" "$OUT/$module.doccarchive"
    mkdir -p "$GRAPHS/$module"
    "$BIN/swift-symbolgraph-extract" -module-name "$module" -I "$MODULE_DIR" -target "$TRIPLE" \
        -output-dir "$GRAPHS/$module" -minimum-access-level public
    "$BIN/docc" convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.hail.$module" \
        --additional-symbol-graph-dir "$GRAPHS/$module" \
        --output-dir "$OUT/$module.doccarchive" --warnings-as-errors
done
echo "docs: ${MODULES[*]} in $OUT" >&2
