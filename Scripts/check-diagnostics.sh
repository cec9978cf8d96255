#!/usr/bin/env bash
# Compiles each common mistake under Scripts/diagnostics/ against the built library and checks
# that the compiler says what its `// expect:` comment says (see Docs/GettingStarted.md, "When the
# compiler complains"). Needs a build first (`swift build` or `swift test`); takes a few seconds.
#
#   Scripts/check-diagnostics.sh [build-directory]    # default: .build/debug
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD="${1:-.build/debug}"
# SwiftPM 6 puts the modules under Modules/; older versions beside the products.
if [ -e "$BUILD/Modules/ObservedGraph.swiftmodule" ]; then
  MODULES="$BUILD/Modules"
elif [ -e "$BUILD/ObservedGraph.swiftmodule" ]; then
  MODULES="$BUILD"
else
  echo "check-diagnostics: no ObservedGraph.swiftmodule under $BUILD; run 'swift build' first" >&2
  exit 2
fi

SWIFTC=(swiftc)
if [ "$(uname)" = "Darwin" ]; then SWIFTC=(xcrun swiftc); fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

failures=0
count=0
for file in Scripts/diagnostics/*.swift; do
  count=$((count + 1))
  expected="$(sed -n 's|^// expect: ||p' "$file")"
  if [ -z "$expected" ]; then
    echo "FAIL $file: no '// expect:' line"
    failures=$((failures + 1))
    continue
  fi
  output="$WORK/$(basename "$file").txt"
  # The mistake must not compile: a zero status is a failure too.
  if "${SWIFTC[@]}" -typecheck -swift-version 6 -I "$MODULES" \
    -module-cache-path "$WORK/cache" "$file" >"$output" 2>&1; then
    echo "FAIL $file: compiled without an error"
    failures=$((failures + 1))
  elif grep -qF -- "$expected" "$output"; then
    echo "ok   $file"
  else
    echo "FAIL $file: expected '$expected'; the compiler said:"
    grep -E "error:" "$output" | sed 's/^/       /' || cat "$output"
    failures=$((failures + 1))
  fi
done

if [ "$failures" -gt 0 ]; then
  echo "check-diagnostics: $failures of $count mistakes did not get the expected message"
  exit 1
fi
echo "check-diagnostics: all $count mistakes get the expected message"
