#!/usr/bin/env bash
# Build the engine for the browser, four times: cargo (profile "web" = release + LTO, wasm32) ->
# wasm-bindgen --target web -> pkg/, then wasm-opt -Oz from npm's binaryen (Debian's older
# binaryen produces a broken module).
#   pkg/attnscope_bg.wasm          simd128 (.cargo/config.toml): every current browser
#   pkg/attnscope_relaxed_bg.wasm  simd128 + relaxed-simd (fused multiply-add in the matrix
#                                  kernels, about 15% faster); www/js/runtime.js loads it where
#                                  WebAssembly.validate accepts a relaxed-simd instruction
#   pkg/attnscope_subword_bg.wasm  simd128 + the subword tokenizers (feature `subword`: WordPiece,
#                                  byte-level BPE, SentencePiece, with their Unicode tables; about
#                                  90 KB more gzipped), loaded only for a model file that needs them
#                                  (MiniLM, the Tiny GPT, a converted BERT, GPT-2 or Marian)
#   pkg/attnscope_relaxed_subword_bg.wasm  the same with relaxed SIMD, where the browser has it
# The builds have the same exports and imports, so they share pkg/attnscope.js (checked below).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
opt() {
  node_modules/.bin/wasm-opt -Oz --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals "$@"
}

# build NAME FEATURES [RUSTFLAGS]: the engine for the browser in $target/NAME (its own target
# directory, so that the builds with other RUSTFLAGS or features do not invalidate each other).
# No default features: the page's engine has no subword tokenizers and no CLI. RUSTFLAGS, when
# given, replaces the config's target rustflags.
build() {
  if [ -n "${3:-}" ]; then
    RUSTFLAGS="$3" CARGO_TARGET_DIR="$target/$1" \
      cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features "$2"
  else
    CARGO_TARGET_DIR="$target/$1" \
      cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features "$2"
  fi
}
# Jobs two at a time: `bg CMD...` starts one in the background, `wait_all WHAT` waits for them and
# stops at the first failure. Most of a cargo build here is one crate at a time (dependencies in
# order, then this crate with LTO and one codegen unit), and wasm-opt uses one core, so two jobs
# side by side take little longer than one.
pids=()
bg() { "$@" & pids+=($!); }
wait_all() {
  local pid
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "build-wasm: $1 failed (see above)" >&2; exit 1; }
  done
  pids=()
}
# seed NAME FROM: a first build of NAME starts from a copy of FROM's target directory (same
# RUSTFLAGS, so every dependency is already built: 15 s instead of 2 to 3 minutes on a new
# machine, and the same bytes); afterwards each keeps its own directory, so neither invalidates the other.
seed() { if [ ! -d "$target/$1" ] && [ -d "$target/$2" ]; then cp -a "$target/$2" "$target/$1"; fi; }
relaxed="-C target-feature=+simd128,+relaxed-simd"
bg build simd wasm
bg build relaxed wasm "$relaxed"
wait_all "a cargo build"
seed subword simd
seed relaxed-subword relaxed
bg build subword wasm,subword
bg build relaxed-subword wasm,subword "$relaxed"
wait_all "a cargo build"

wasm-bindgen --target web --out-dir pkg "$target/simd/wasm32-unknown-unknown/web/attnscope.wasm"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# finish NAME OUT [WASM-OPT FLAGS]: wasm-bindgen's output for NAME's build in $tmp/NAME, its glue
# checked against pkg/'s, then wasm-opt'd into OUT
finish() {
  wasm-bindgen --target web --out-dir "$tmp/$1" "$target/$1/wasm32-unknown-unknown/web/attnscope.wasm"
  if ! cmp -s "$tmp/$1/attnscope.js" pkg/attnscope.js; then
    echo "build-wasm: the $1 build needs other JS glue than the simd128 build; they must share pkg/attnscope.js" >&2
    exit 1
  fi
  opt "${@:3}" "$tmp/$1/attnscope_bg.wasm" -o "$2"
}
bg opt pkg/attnscope_bg.wasm -o pkg/attnscope_bg.wasm
bg finish relaxed pkg/attnscope_relaxed_bg.wasm --enable-relaxed-simd
wait_all "wasm-bindgen or wasm-opt"
bg finish subword pkg/attnscope_subword_bg.wasm
bg finish relaxed-subword pkg/attnscope_relaxed_subword_bg.wasm --enable-relaxed-simd
wait_all "wasm-bindgen or wasm-opt"

for f in pkg/attnscope_bg.wasm pkg/attnscope_relaxed_bg.wasm pkg/attnscope_subword_bg.wasm pkg/attnscope_relaxed_subword_bg.wasm; do
  printf 'build-wasm: %s %s bytes\n' "$f" "$(wc -c < "$f")"
done
