//! The JS bindings in headless Chromium
//! (`cargo test --target wasm32-unknown-unknown --features wasm --test wasm_browser`).
#![cfg(all(target_arch = "wasm32", feature = "wasm"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
mod wasm_cases;
