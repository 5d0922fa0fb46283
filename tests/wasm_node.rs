//! The JS bindings in Node (`cargo test --target wasm32-unknown-unknown --features wasm --test wasm_node`).
#![cfg(all(target_arch = "wasm32", feature = "wasm"))]
mod wasm_cases;
