//! The `load_vectors` property, shared by the cargo-fuzz target and
//! `tests/fuzz_regressions.rs`: any byte string given to `WordVectors::from_safetensors` gives
//! `Ok` or `Err`, never a panic; a table that loads answers look-ups for each of its first words.

use attnscope::WordVectors;

pub fn check(data: &[u8]) {
    let Ok(vectors) = WordVectors::from_safetensors(data) else { return };
    let probe: Vec<String> = ["the", "", "king"].iter().map(|s| s.to_string()).collect();
    let (vecs, _unknown) = vectors.lookup(&probe);
    assert!(vecs.iter().all(|v| v.len() == vectors.dim), "every looked-up vector has dim values");
    assert!(!vectors.is_empty());
}
