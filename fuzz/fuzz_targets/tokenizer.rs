//! cargo-fuzz target `tokenizer`: the check in `fuzz/checks/tokenizer.rs` (also replayed on the
//! regression inputs and seeds by `tests/fuzz_regressions.rs`), which says what must hold.
#![no_main]

#[path = "../checks/tokenizer.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
