#!/usr/bin/env bash
# Fuzzing campaigns (`make fuzz`; not part of `make test`): each cargo-fuzz target in fuzz/ runs
# for FUZZ_SECONDS (default 600) one after another, then one summary line per target.
#   FUZZ_SECONDS=60 scripts/fuzz.sh               every target, 60 s each
#   scripts/fuzz.sh tokenizer load_vectors        only these
# Needs the nightly toolchain and cargo-fuzz: `scripts/setup.sh fuzz` installs them.
# Corpora grow in fuzz/corpus/<target>/ (git-ignored, kept between runs, seeded from fuzz/seeds/
# and the parity models); findings are written to fuzz/artifacts/<target>/ (git-ignored) and
# make the script exit 1; a finding becomes a regression test in tests/ (see fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")/../fuzz"

FUZZ_SECONDS=${FUZZ_SECONDS:-600}
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(load_model load_vectors tokenizer)
LOGS=target/fuzz-logs
mkdir -p "$LOGS"

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain or cargo-fuzz is missing; run scripts/setup.sh fuzz" >&2
  exit 1
fi

# Per target: the seed corpus and the libFuzzer options.
seed() {
  mkdir -p "corpus/$1" "artifacts/$1"
  [ -n "$(ls -A "corpus/$1")" ] && return
  case $1 in
    load_model) find ../tests/fixtures/parity -name '*.safetensors' ! -name '*.expected.safetensors' -exec cp {} corpus/load_model/ \; ;;
    *) [ -d "seeds/$1" ] && cp seeds/"$1"/* "corpus/$1/" ;;
  esac
}
options() {
  case $1 in
    load_model) echo "-dict=load_model.dict -max_len=65536" ;;
    load_vectors) echo "-dict=load_model.dict -max_len=16384" ;;
    tokenizer) echo "-max_len=4096" ;;
  esac
}

summary=()
status=0
for t in "${TARGETS[@]}"; do
  echo "fuzz: building $t"
  cargo +nightly fuzz build --release "$t" 2>>"$LOGS/build.log" || { tail -20 "$LOGS/build.log" >&2; exit 1; }
done
for t in "${TARGETS[@]}"; do
  seed "$t"
  log="$LOGS/$t.log"
  echo "fuzz: $t for ${FUZZ_SECONDS}s (log: fuzz/$log)"
  # shellcheck disable=SC2046
  cargo +nightly fuzz run --release "$t" "corpus/$t" "regressions/$t" -- $(options "$t") \
    -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -z "$runs" ] && runs=$(sed -E -n 's/^#([0-9]+).*/\1/p' <<<"$last")
  secs=$(sed -E -n 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -1)
  cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -E -n 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
  findings=$(grep -c 'Test unit written to' "$log")
  line=$(printf '%-13s %10s execs in %ss, cov %s, ft %s, corpus %s inputs, findings %s' \
    "$t" "${runs:-?}" "${secs:-?}" "${cov:-?}" "${ft:-?}" "$corp" "$findings")
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    status=1
    line="$line  FAILED (exit $rc): $(grep -m1 -E 'ERROR: libFuzzer|panicked at|==ERROR' "$log" | cut -c1-120)"
    grep 'Test unit written to' "$log" | sed 's/^/    /'
  fi
  summary+=("$line")
done

echo "fuzz: summary (execs = runs, cov = coverage edges, ft = libFuzzer features)"
printf '  %s\n' "${summary[@]}"
exit $status
