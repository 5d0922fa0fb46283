//! cargo-fuzz target `subword`: the check in `fuzz/checks/subword.rs` (also run on a few inputs
//! by `tests/subword.rs`), which says what must hold.
#![no_main]

#[path = "../checks/subword.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
