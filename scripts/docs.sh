#!/usr/bin/env bash
# Builds the DocC documentation of the app cores (HailRider, HailDriver) and HailCore's tracking types with the
# toolchain's own docc, from symbol graphs the compiler emits; no SwiftPM plugin. Any DocC warning (a broken
# symbol link, say) fails the build.
#   bash scripts/docs.sh     (make docs; part of make test)
# Output: .build/docs/<Module>.doccarchive, each a static site (open its index.html through any web server).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
MODULES=(HailCore HailRider HailDriver)
# A scratch folder of its own: the symbol-graph flags would otherwise rebuild the main .build from scratch.
SCRATCH="$ROOT/.build/docs-build"
GRAPHS="$SCRATCH/symbol-graphs"
OUT="$ROOT/.build/docs"
DOCC="$(dirname "$(command -v swift)")/docc"
[ -x "$DOCC" ] || DOCC="$(command -v docc)"

rm -rf "$GRAPHS"
mkdir -p "$GRAPHS" "$OUT"
for target in HailRider HailDriver; do
    swift build --scratch-path "$SCRATCH" --target "$target" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$GRAPHS" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >&2
done
for module in "${MODULES[@]}"; do
    # Each archive gets its own module's graphs only (and its extensions of other modules' types).
    mkdir -p "$GRAPHS/$module"
    cp "$GRAPHS/$module.symbols.json" "$GRAPHS/$module"/
    find "$GRAPHS" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$GRAPHS/$module"/ \;
    rm -rf "$OUT/$module.doccarchive"
    "$DOCC" convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" --fallback-bundle-identifier "dev.hail.$module" \
        --additional-symbol-graph-dir "$GRAPHS/$module" \
        --output-dir "$OUT/$module.doccarchive" --warnings-as-errors
done
echo "docs: ${MODULES[*]} in $OUT" >&2
