#!/usr/bin/env bash
# Install every tool the build and the tests need, idempotently (a second run does nothing).
#   scripts/setup.sh          Rust wasm target, wasm-bindgen-cli, npm packages
#   scripts/setup.sh browser  ... and Debian's chromium + chromium-driver for the browser tests
#   scripts/setup.sh python   only the Python environment of `make bench-compare` (target/venv:
#                             torch, safetensors, onnx, onnxscript, onnxruntime; about 3 GB)
#   scripts/setup.sh fuzz     only the fuzzing tools (`make fuzz`): the nightly toolchain and
#                             cargo-fuzz; stops with a message when nightly cannot be had
set -euo pipefail
cd "$(dirname "$0")/.."

# The wasm-bindgen CLI must be exactly the version of the wasm-bindgen crate in Cargo.lock.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)

say() { printf 'setup: %s\n' "$*"; }

if [ "${1:-}" = "python" ]; then
  VENV=target/venv
  PACKAGES="torch numpy safetensors onnx onnxscript onnxruntime"
  if ! "$VENV/bin/python" -c "import torch, numpy, safetensors, onnx, onnxscript, onnxruntime" 2>/dev/null; then
    say "making the Python environment $VENV ($PACKAGES; PyPI's torch pulls CUDA wheels, about 3 GB)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check $PACKAGES
  fi
  say "ok (python: $("$VENV/bin/python" --version))"
  exit 0
fi

if [ "${1:-}" = "fuzz" ]; then
  # libFuzzer's sanitizer flags need nightly. rustup fetches toolchains from
  # static.rust-lang.org, which machines limited to the package registries cannot reach: give
  # it 5 minutes, then stop with a message instead of hanging.
  if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    say "installing the nightly toolchain (rustup, from static.rust-lang.org)"
    if ! timeout 300 rustup toolchain install nightly --profile minimal </dev/null; then
      say "ERROR: could not install the nightly Rust toolchain (rustup needs static.rust-lang.org," >&2
      say "which this machine may not reach). make fuzz needs nightly; everything else works on stable." >&2
      say "Install it where the network allows (rustup toolchain install nightly) and run again." >&2
      exit 1
    fi
  fi
  if ! cargo fuzz --version >/dev/null 2>&1; then
    say "installing cargo-fuzz from crates.io (compiles for a few minutes)"
    cargo install cargo-fuzz
  fi
  say "ok (fuzz: $(rustup run nightly rustc --version), $(cargo fuzz --version))"
  exit 0
fi

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (compiles for 1.5 to 3 minutes)"
  # No --locked: it fails resolving webpki-roots for this version. No default features: they are
  # TLS (rustls and ring) for a test runner that only talks to the local chromedriver over http.
  # Optimised less than a release build (opt-level 1, no debug info): it runs for under a second
  # a build, and compiling it is most of a new machine's set-up (93 s on an idle 2-core machine;
  # beside a training run 3m30s, where the default build took 4m13s).
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 \
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/@playwright/test ] || [ ! -d node_modules/@axe-core/playwright ] || [ ! -x node_modules/.bin/tsc ] || [ package.json -nt node_modules/.installed ]; then
  say "installing npm packages (binaryen's wasm-opt, @playwright/test, @axe-core/playwright, typescript; no browser download)"
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
  touch node_modules/.installed
fi

if [ "${1:-}" = "browser" ]; then
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Debian's chromium and chromium-driver"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
fi
say "ok"
