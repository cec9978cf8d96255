#!/usr/bin/env bash
# Shows that the compiler keeps a context and its objects in one isolation domain: each snippet
# below must fail to compile with the diagnostic named beside it, and the last one, which
# sends only Sendable values (identifiers, change values, did-save change sets, an event stream)
# and makes a context inside the task that uses it, must compile cleanly.
#
#   Scripts/check-isolation.sh
#
# It builds the ObservedGraph module (debug, .build, JOBS jobs; all cores when unset), then
# compiles each snippet against it to SIL in Swift 6 language mode (region-based isolation, the
# check that decides what may be sent to another task, runs on SIL).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs="${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu)}"
echo "== isolation: build ObservedGraph (-j $jobs)"
swift build --target ObservedGraph -j "$jobs"
modules="$(swift build --show-bin-path)/Modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

failures=0
# check NAME EXPECTED: compiles the snippet on standard input. EXPECTED is a piece of the
# diagnostic the compiler must give, or "compiles" for a snippet that must compile without a
# diagnostic.
check() {
  local name="$1" expected="$2" file="$work/$1.swift" output status
  cat > "$file"
  status=0
  # -emit-sil, not -typecheck: the checks of what a value may be sent to run on SIL.
  output="$(swiftc -emit-sil -o /dev/null -swift-version 6 -I "$modules" "$file" 2>&1)" || status=$?
  if [ "$expected" = "compiles" ]; then
    if [ $status -eq 0 ] && [ -z "$output" ]; then
      echo "ok   $name: compiles without a diagnostic"
      return
    fi
  elif [ $status -ne 0 ] && grep -q -- "$expected" <<< "$output"; then
    echo "ok   $name: $(grep -m1 -- "$expected" <<< "$output" | sed 's/^[^ ]* error: //')"
    return
  fi
  echo "FAIL $name: expected ${expected}; the compiler said:"
  echo "$output"
  failures=$((failures + 1))
}

check context-is-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(ObjectContext.self) }
SWIFT

check object-is-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(ManagedObject.self) }
SWIFT

check results-are-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(FetchedResults<ManagedObject>.self) }
SWIFT

check container-is-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(PersistentContainer.self) }
SWIFT

check undo-log-is-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(UndoLog.self) }
SWIFT

check token-is-not-sendable "does not conform to the 'Sendable' protocol" <<'SWIFT'
import ObservedGraph
func requireSendable<T: Sendable>(_: T.Type) {}
func check() { requireSendable(ObservationToken.self) }
SWIFT

check context-into-detached-task "risks causing data races" <<'SWIFT'
import ObservedGraph
@MainActor func saveLater(_ context: ObjectContext) {
  Task.detached { try? context.save() }
}
SWIFT

check object-into-detached-task "risks causing data races" <<'SWIFT'
import ObservedGraph
@MainActor func renameLater(_ book: ManagedObject) {
  Task.detached { try? book.setValue("Dune", forKey: "title") }
}
SWIFT

check context-used-after-sending "risks causing data races" <<'SWIFT'
import ObservedGraph
func both(model: ObjectModel) {
  let context = ObjectContext(model: model)
  Task.detached { _ = context.hasChanges }
  _ = context.hasChanges
}
SWIFT

check context-to-an-actor "risks causing data races" <<'SWIFT'
import ObservedGraph
actor Worker {
  func take(_ context: ObjectContext) {}
}
@MainActor func hand(_ context: ObjectContext, to worker: Worker) async {
  await worker.take(context)
}
SWIFT

check results-into-detached-task "risks causing data races" <<'SWIFT'
import ObservedGraph
@MainActor func countLater(_ results: FetchedResults<ManagedObject>) {
  Task.detached { _ = results.objects.count }
}
SWIFT

check context-in-a-sendable-type "non-Sendable type 'ObjectContext'" <<'SWIFT'
import ObservedGraph
struct Box: Sendable {
  let context: ObjectContext
}
SWIFT

check identifiers-and-change-values-cross compiles <<'SWIFT'
import ObservedGraph
@MainActor func send(_ context: ObjectContext, _ book: ManagedObject) async throws {
  let id = book.objectID
  var saves: [SavedObjects] = []
  var changes: [ObservedChange<String>] = []
  let saveToken = context.onDidSave { saves.append($0) }
  let token = try book.observe(keyPath: "title", options: [.old, .new]) { change in
    let title = change.newValue.flatMap { $0 as? String }
    changes.append(ObservedChange(kind: change.kind, newValue: title))
  }
  try context.save()
  let sentSaves = saves
  let sentChanges = changes
  let events = context.objectsDidChange
  let model = context.model
  await Task.detached {
    let other = ObjectContext(model: model)
    _ = other.object(with: id)
    _ = sentSaves.first?.inserted
    _ = sentChanges.first?.newValue
    for await event in events {
      _ = event.inserted
      break
    }
  }.value
  _ = (token, saveToken)
}
SWIFT

if [ $failures -ne 0 ]; then
  echo "== isolation: $failures check(s) failed"
  exit 1
fi
echo "== isolation: every check passed"
