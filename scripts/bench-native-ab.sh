#!/usr/bin/env bash
# Native before/after of the forward benchmark: this tree against an older commit, the two
# builds' rounds alternating in one machine state (not a test: prints criterion's time lines).
#
#   scripts/bench-native-ab.sh OLD_REV [FILTER=demo/forward/64] [ROUNDS=3]
#
# Builds benches/forward.rs at OLD_REV in a temporary worktree with a target directory of its
# own (cargo would otherwise keep one binary for both), then runs each binary ROUNDS times on
# FILTER, old then new, with criterion's files kept apart from target/criterion.
set -euo pipefail
cd "$(dirname "$0")/.."
old="${1:?usage: scripts/bench-native-ab.sh OLD_REV [FILTER] [ROUNDS]}"
filter="${2:-demo/forward/64}"
rounds="${3:-3}"
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/old" "$old"

# the path of the forward benchmark's binary, built in $1 with target directory $2
bench_bin() {
  (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench --bench forward --no-run --message-format=json 2>/dev/null) |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}
new_bin="$(bench_bin . "${CARGO_TARGET_DIR:-$PWD/target}")"
old_bin="$(bench_bin "$work/old" "$work/target")"
export CRITERION_HOME="$work/criterion"
for r in $(seq "$rounds"); do
  for side in old new; do
    bin="${side}_bin"
    printf 'round %s %s: ' "$r" "$side"
    "${!bin}" --bench "$filter" --warm-up-time 1 --measurement-time 3 --noplot 2>/dev/null | grep "time:" | sed 's/  */ /g'
  done
done
