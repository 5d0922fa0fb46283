#!/usr/bin/env bash
# Build the engine for the browser: cargo (profile "web" = release + LTO, wasm32) -> wasm-bindgen --target web -> pkg/,
# then wasm-opt -Oz from npm's binaryen (Debian's older binaryen produces a broken module).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --lib --profile web --target wasm32-unknown-unknown --features wasm
wasm-bindgen --target web --out-dir pkg --no-typescript "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/attnscope.wasm"
node_modules/.bin/wasm-opt -Oz --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
  pkg/attnscope_bg.wasm -o pkg/attnscope_bg.wasm
printf 'build-wasm: pkg/attnscope_bg.wasm %s bytes\n' "$(wc -c < pkg/attnscope_bg.wasm)"
