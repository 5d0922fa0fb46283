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

# No default features: the page's engine has no subword tokenizers and no CLI (see the third build).
cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features wasm
wasm-bindgen --target web --out-dir pkg "$target/wasm32-unknown-unknown/web/attnscope.wasm"
opt pkg/attnscope_bg.wasm -o pkg/attnscope_bg.wasm

# RUSTFLAGS replaces the config's target rustflags; its own target directory keeps the two
# builds from invalidating each other.
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR="$target/relaxed" \
  cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features wasm
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# bindgen DIR NAME: wasm-bindgen's output for DIR's build in $tmp/NAME, its glue checked against pkg/'s
bindgen() {
  wasm-bindgen --target web --out-dir "$tmp/$2" "$1/wasm32-unknown-unknown/web/attnscope.wasm"
  if ! cmp -s "$tmp/$2/attnscope.js" pkg/attnscope.js; then
    echo "build-wasm: the $2 build needs other JS glue than the simd128 build; they must share pkg/attnscope.js" >&2
    exit 1
  fi
}
bindgen "$target/relaxed" relaxed
opt --enable-relaxed-simd "$tmp/relaxed/attnscope_bg.wasm" -o pkg/attnscope_relaxed_bg.wasm

CARGO_TARGET_DIR="$target/subword" \
  cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features wasm,subword
bindgen "$target/subword" subword
opt "$tmp/subword/attnscope_bg.wasm" -o pkg/attnscope_subword_bg.wasm

RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR="$target/relaxed-subword" \
  cargo build --lib --profile web --target wasm32-unknown-unknown --no-default-features --features wasm,subword
bindgen "$target/relaxed-subword" relaxed-subword
opt --enable-relaxed-simd "$tmp/relaxed-subword/attnscope_bg.wasm" -o pkg/attnscope_relaxed_subword_bg.wasm

for f in pkg/attnscope_bg.wasm pkg/attnscope_relaxed_bg.wasm pkg/attnscope_subword_bg.wasm pkg/attnscope_relaxed_subword_bg.wasm; do
  printf 'build-wasm: %s %s bytes\n' "$f" "$(wc -c < "$f")"
done
