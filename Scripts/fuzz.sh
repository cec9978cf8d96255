#!/usr/bin/env bash
# Builds the fuzz targets in Fuzz/ with libFuzzer and AddressSanitizer, and runs them.
#
#   Scripts/fuzz.sh build                      build both targets (debug: assertions on)
#   Scripts/fuzz.sh run TARGET [SECONDS] [libFuzzer options...]
#                                              fuzz one target (Predicate or StoreFile) for
#                                              SECONDS (600 by default), at low priority
#   Scripts/fuzz.sh regress                    run each target once over its seed corpus
#   Scripts/fuzz.sh seeds                      write the StoreFile seed corpus again
#
# Environment: FUZZ_CONFIGURATION=release builds with optimization (faster, fewer checks).
# New inputs go to .build-fuzz/corpus/TARGET (the seeds in Fuzz/Corpus/TARGET stay as they are);
# a crashing input is written to .build-fuzz/artifacts/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
scratch="$root/.build-fuzz"
configuration=${FUZZ_CONFIGURATION:-debug}
targets=(Predicate StoreFile)
# The Swift runtime's crash handler reads memory AddressSanitizer guards: leave crashes to libFuzzer.
export SWIFT_BACKTRACE=enable=no

usage() {
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

# libFuzzer comes with swift.org toolchains on Linux; Xcode's toolchain has none.
check_libfuzzer() {
  local probe
  probe=$(mktemp -d)
  printf '%s\n' '@_cdecl("LLVMFuzzerTestOneInput")' \
    'public func probe(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt { 0 }' \
    >"$probe/probe.swift"
  if swiftc -sanitize=fuzzer -parse-as-library "$probe/probe.swift" -o "$probe/probe" \
    >"$probe/log" 2>&1; then
    rm -rf "$probe"
    return
  fi
  rm -rf "$probe"
  if [ "$(uname)" = Darwin ]; then
    echo "fuzz.sh: this Swift toolchain has no libFuzzer (Xcode's has none); install a" \
      "swift.org toolchain and select it with TOOLCHAINS to fuzz. Nothing was built."
    exit 0
  fi
  echo "fuzz.sh: swiftc -sanitize=fuzzer failed; a swift.org toolchain has libFuzzer." >&2
  exit 1
}

build() {
  check_libfuzzer
  # --sanitize=fuzzer links libFuzzer's main; the compiler flag instruments every module for
  # coverage and AddressSanitizer (given as two --sanitize options, the compiler keeps only one).
  swift build -j 1 --package-path "$root/Fuzz" --scratch-path "$scratch" -c "$configuration" \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
}

binary() {
  echo "$scratch/$configuration/Fuzz$1"
}

known_target() {
  local target
  for target in "${targets[@]}"; do [ "$target" = "$1" ] && return; done
  echo "fuzz.sh: no target $1 (the targets: ${targets[*]})" >&2
  exit 2
}

command=${1:-}
[ -n "$command" ] || usage
shift
case "$command" in
build)
  build
  ;;
run)
  [ $# -ge 1 ] || usage
  target=$1
  shift
  known_target "$target"
  seconds=${1:-600}
  [ $# -ge 1 ] && shift
  build
  mkdir -p "$scratch/corpus/$target" "$scratch/artifacts"
  dictionary=()
  [ -f "$root/Fuzz/$target.dict" ] && dictionary=("-dict=$root/Fuzz/$target.dict")
  nice -n 19 "$(binary "$target")" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$scratch/artifacts/$target-" \
    ${dictionary[@]+"${dictionary[@]}"} "$@" "$scratch/corpus/$target" "$root/Fuzz/Corpus/$target"
  ;;
regress)
  build
  for target in "${targets[@]}"; do
    "$(binary "$target")" "$root/Fuzz/Corpus/$target"/*
  done
  ;;
seeds)
  build
  OG_FUZZ_WRITE_SEEDS="$root/Fuzz/Corpus/StoreFile" "$(binary StoreFile)"
  ls -l "$root/Fuzz/Corpus/StoreFile"
  ;;
*)
  usage
  ;;
esac
