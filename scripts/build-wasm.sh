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
# Two at a time: most of a build is its last step (the crate with LTO and one codegen unit), which
# uses one core, so two builds side by side take little longer than one.
# pair A B: run the builds named A and B (arguments "NAME|FEATURES|RUSTFLAGS") side by side.
pair() {
  local pids=() spec
  for spec in "$@"; do
    IFS='|' read -r name features flags <<< "$spec"
    build "$name" "$features" "$flags" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "build-wasm: a cargo build failed (see above)" >&2; exit 1; }
  done
}
relaxed="-C target-feature=+simd128,+relaxed-simd"
pair "simd|wasm|" "relaxed|wasm|$relaxed"
pair "subword|wasm,subword|" "relaxed-subword|wasm,subword|$relaxed"

wasm-bindgen --target web --out-dir pkg "$target/simd/wasm32-unknown-unknown/web/attnscope.wasm"
opt pkg/attnscope_bg.wasm -o pkg/attnscope_bg.wasm

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# bindgen NAME: wasm-bindgen's output for NAME's build in $tmp/NAME, its glue checked against pkg/'s
bindgen() {
  wasm-bindgen --target web --out-dir "$tmp/$1" "$target/$1/wasm32-unknown-unknown/web/attnscope.wasm"
  if ! cmp -s "$tmp/$1/attnscope.js" pkg/attnscope.js; then
    echo "build-wasm: the $1 build needs other JS glue than the simd128 build; they must share pkg/attnscope.js" >&2
    exit 1
  fi
}
bindgen relaxed
opt --enable-relaxed-simd "$tmp/relaxed/attnscope_bg.wasm" -o pkg/attnscope_relaxed_bg.wasm
bindgen subword
opt "$tmp/subword/attnscope_bg.wasm" -o pkg/attnscope_subword_bg.wasm
bindgen relaxed-subword
opt --enable-relaxed-simd "$tmp/relaxed-subword/attnscope_bg.wasm" -o pkg/attnscope_relaxed_subword_bg.wasm

for f in pkg/attnscope_bg.wasm pkg/attnscope_relaxed_bg.wasm pkg/attnscope_subword_bg.wasm pkg/attnscope_relaxed_subword_bg.wasm; do
  printf 'build-wasm: %s %s bytes\n' "$f" "$(wc -c < "$f")"
done
