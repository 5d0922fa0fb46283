//! cargo-fuzz target `load_vectors`: the check in `fuzz/checks/load_vectors.rs` (also replayed on the
//! regression inputs and seeds by `tests/fuzz_regressions.rs`), which says what must hold.
#![no_main]

#[path = "../checks/load_vectors.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
