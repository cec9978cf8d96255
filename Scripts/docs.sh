#!/usr/bin/env bash
# Builds the API reference of each documented module as static HTML, with the toolchain's own
# `docc` (no package plugin), into .build/docs/<Module>. A broken symbol link or any other DocC
# warning fails the script.
#
#   Scripts/docs.sh            # builds the modules (debug; a no-op after `swift build` or
#                              # `swift test`), extracts their symbol graphs, converts
#   Scripts/docs.sh -j 1       # extra arguments go to `swift build`
#
# Open .build/docs/<Module>/index.html through a web server whose root is .build/docs, e.g.
#   python3 -m http.server --directory .build/docs 8000
# then http://localhost:8000/ObservedGraph/documentation/observedgraph/
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(UndoLog ObservedGraph ObservedGraphSQLite)

# The toolchain that runs `swift` also ships `docc` and `swift-symbolgraph-extract`.
bin="$(dirname "$(readlink -f "$(command -v swift)")")"
docc="$bin/docc"
extract="$bin/swift-symbolgraph-extract"
if [ ! -x "$docc" ]; then docc="$(xcrun --find docc 2>/dev/null || command -v docc)"; fi
if [ ! -x "$extract" ]; then
  extract="$(xcrun --find swift-symbolgraph-extract 2>/dev/null || command -v swift-symbolgraph-extract)"
fi

# The debug build's modules: the symbol graphs come from its .swiftmodule and .swiftdoc files,
# so nothing is compiled again with other flags.
swift build --target ObservedGraphSQLite "$@"
modules_dir="$(swift build --show-bin-path)/Modules"
[ -d "$modules_dir" ] || modules_dir="$(swift build --show-bin-path)"
triple="$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')"

# CSQLite is a system library: its module map and the system's SQLite headers.
sqlite_flags=()
if command -v pkg-config > /dev/null && pkg-config --exists sqlite3; then
  for flag in $(pkg-config --cflags-only-I sqlite3); do sqlite_flags+=(-Xcc "$flag"); done
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for module in "${modules[@]}"; do
  catalog="Sources/$module/$module.docc"
  output=".build/docs/$module"
  graphs="$work/$module"
  mkdir -p "$graphs"
  "$extract" -module-name "$module" -target "$triple" -I "$modules_dir" \
    -Xcc "-fmodule-map-file=Sources/CSQLite/module.modulemap" -I Sources/CSQLite \
    ${sqlite_flags[@]+"${sqlite_flags[@]}"} -minimum-access-level public -skip-inherited-docs \
    -output-dir "$graphs"
  rm -rf "$output"
  mkdir -p .build/docs
  # Every public symbol: a summary, its parameters, what it throws and returns.
  if ! python3 Scripts/doc-audit.py "$graphs" --list; then status=1; fi
  # The base path is the module's folder, so each folder can be served as it is.
  if ! "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs" \
    --output-path "$output" --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.observedgraph.$module" \
    --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors \
    > "$work/$module.log" 2>&1; then
    cat "$work/$module.log"
    echo "docs: $module has DocC warnings or errors (above)" >&2
    status=1
  else
    echo "docs: $module -> $output"
  fi
done
exit "$status"
