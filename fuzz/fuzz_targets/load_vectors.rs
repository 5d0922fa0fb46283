//! Any byte string given to `WordVectors::from_safetensors` must give `Ok` or `Err`, never a
//! panic; a table that loads must answer look-ups for each of its first words.
#![no_main]

use attnscope::WordVectors;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(vectors) = WordVectors::from_safetensors(data) else { return };
    let probe: Vec<String> = ["the", "", "king"].iter().map(|s| s.to_string()).collect();
    let (vecs, _unknown) = vectors.lookup(&probe);
    assert!(vecs.iter().all(|v| v.len() == vectors.dim), "every looked-up vector has dim values");
    assert!(!vectors.is_empty());
});
