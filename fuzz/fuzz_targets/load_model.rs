//! cargo-fuzz target `load_model`: the check in `fuzz/checks/load_model.rs` (also replayed on the
//! regression inputs and seeds by `tests/fuzz_regressions.rs`), which says what must hold.
#![no_main]

#[path = "../checks/load_model.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
