#!/usr/bin/env bash
# Builds the tests with a sanitizer and runs them, each sanitizer in a build folder of its own so
# the normal build is left alone:
#
#   Scripts/sanitizers.sh address     AddressSanitizer (with LeakSanitizer on Linux), .build-asan
#   Scripts/sanitizers.sh thread      ThreadSanitizer, .build-tsan
#   Scripts/sanitizers.sh isolation   the compiler's isolation checks (Scripts/check-isolation.sh)
#   Scripts/sanitizers.sh all         the three, one after the other
#
# JOBS=n builds with n jobs (all cores when unset). Extra arguments go to `swift test`, for
# example `--filter LifetimeTests`. Reports the wall time of each leg. See the section
# "Sanitizers, leaks, concurrency" of Docs/Reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)}"
scripts="$(pwd)/Scripts"

# One sanitizer leg: build the tests, then run them; prints the leg's wall time.
leg() {
  local sanitizer="$1" scratch="$2"
  shift 2
  local start=$SECONDS
  echo "== $sanitizer sanitizer: build (-j $jobs, --scratch-path $scratch)"
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" -j "$jobs"
  echo "== $sanitizer sanitizer: tests"
  swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@"
  echo "== $sanitizer sanitizer: passed in $((SECONDS - start)) s"
}

# Any report fails the run. The suppressions name only reports made in error (the toolchain's own
# objects, a pointer LeakSanitizer cannot follow); each is explained in its file and in
# Docs/Reliability.md. LeakSanitizer runs with ASan on Linux; Apple's ASan refuses
# `detect_leaks` on some platforms.
leaks=""
if [ "$(uname)" = "Linux" ]; then leaks=":detect_leaks=1"; fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1$leaks}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$scripts/lsan.supp:print_suppressions=0}"
tsan="halt_on_error=1:second_deadlock_stack=1"
export TSAN_OPTIONS="${TSAN_OPTIONS:-$tsan:suppressions=$scripts/tsan.supp:print_suppressions=0}"

mode="${1:-}"
shift || true
case "$mode" in
  address) leg address .build-asan "$@" ;;
  thread) leg thread .build-tsan "$@" ;;
  isolation) "$scripts/check-isolation.sh" ;;
  all)
    leg address .build-asan "$@"
    leg thread .build-tsan "$@"
    "$scripts/check-isolation.sh"
    ;;
  *)
    echo "usage: Scripts/sanitizers.sh address|thread|isolation|all [swift test arguments]" >&2
    exit 64
    ;;
esac
