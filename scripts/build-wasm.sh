#!/usr/bin/env bash
# Build the engine for the browser, twice: cargo (profile "web" = release + LTO, wasm32) ->
# wasm-bindgen --target web -> pkg/, then wasm-opt -Oz from npm's binaryen (Debian's older
# binaryen produces a broken module).
#   pkg/attnscope_bg.wasm          simd128 (.cargo/config.toml): every current browser
#   pkg/attnscope_relaxed_bg.wasm  simd128 + relaxed-simd (fused multiply-add in the matrix
#                                  kernels, about 15% faster); www/js/runtime.js loads it where
#                                  WebAssembly.validate accepts a relaxed-simd instruction
# Both builds have the same exports and imports, so they share pkg/attnscope.js (checked below).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
opt() {
  node_modules/.bin/wasm-opt -Oz --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals "$@"
}

cargo build --lib --profile web --target wasm32-unknown-unknown --features wasm
wasm-bindgen --target web --out-dir pkg "$target/wasm32-unknown-unknown/web/attnscope.wasm"
opt pkg/attnscope_bg.wasm -o pkg/attnscope_bg.wasm

# RUSTFLAGS replaces the config's target rustflags; its own target directory keeps the two
# builds from invalidating each other.
RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR="$target/relaxed" \
  cargo build --lib --profile web --target wasm32-unknown-unknown --features wasm
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
wasm-bindgen --target web --out-dir "$tmp" "$target/relaxed/wasm32-unknown-unknown/web/attnscope.wasm"
if ! cmp -s "$tmp/attnscope.js" pkg/attnscope.js; then
  echo "build-wasm: the relaxed-simd build needs other JS glue than the simd128 build; they must share pkg/attnscope.js" >&2
  exit 1
fi
opt --enable-relaxed-simd "$tmp/attnscope_bg.wasm" -o pkg/attnscope_relaxed_bg.wasm

for f in pkg/attnscope_bg.wasm pkg/attnscope_relaxed_bg.wasm; do
  printf 'build-wasm: %s %s bytes\n' "$f" "$(wc -c < "$f")"
done
