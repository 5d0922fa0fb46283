//! An incremental run ([`Session`]) equals a full recompute ([`Model::forward`]) exactly, bit
//! for bit, after any sequence of changes of the kinds a page makes: Q/K edits (new blocks,
//! one-cell drags, the same block again, `0.0` to `-0.0`), head knock-outs (a head switched
//! off or on again, the same set in another order, all restored), head counts (which clear the
//! edits and knock-outs, as `Lab.setOptions` does), option flags, new source and target ids,
//! and resets. Also: what an edit or a knock-out leaves unchanged is reused, not recomputed.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/random_model.rs"]
mod random_model;
#[path = "support/strategies.rs"]
mod strategies;

use std::rc::Rc;

use attnscope::incremental::Session;
use attnscope::{HeadRef, Mat, Model, Override, QkMatrix, RunOptions, Stack};
use proptest::prelude::*;
use random_model::{Rng, Spec};

const MAX_LEN: usize = 6;

/// What a page does between two runs; the payload picks the details (layer, head, values...)
/// against the current state.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// A new random block.
    NewBlock(u64),
    /// One cell of an edited (or trained) block changed, as a drag does: to a random value,
    /// to `0.0` or to `-0.0`.
    Drag(u64),
    /// An edit set again to the values it has.
    SameBlock(u64),
    /// Another head count (clears the edits when it changes).
    Heads(u64),
    /// Flip one of scale, causal decoder, causal encoder, positional.
    Toggle(u64),
    /// New source ids.
    Source(u64),
    /// New target ids.
    Target(u64),
    /// Knock out a random head, or bring it back if it is out.
    KnockOut(u64),
    /// The same knocked-out heads listed in another order (or once more).
    Shuffle(u64),
    /// Bring every head back.
    Restore,
    /// Drop every edit.
    Reset,
    /// Nothing changes.
    Again,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => any::<u64>().prop_map(Op::NewBlock),
        4 => any::<u64>().prop_map(Op::Drag),
        1 => any::<u64>().prop_map(Op::SameBlock),
        1 => any::<u64>().prop_map(Op::Heads),
        2 => any::<u64>().prop_map(Op::Toggle),
        1 => any::<u64>().prop_map(Op::Source),
        1 => any::<u64>().prop_map(Op::Target),
        3 => any::<u64>().prop_map(Op::KnockOut),
        1 => any::<u64>().prop_map(Op::Shuffle),
        1 => Just(Op::Restore),
        1 => Just(Op::Reset),
        1 => Just(Op::Again),
    ]
}

/// The state a page holds in its `Lab`.
struct State {
    src: Vec<u32>,
    tgt: Vec<u32>,
    opts: RunOptions,
}

fn ids(rng: &mut Rng, vocab: usize) -> Vec<u32> {
    (0..1 + rng.below(MAX_LEN)).map(|_| rng.below(vocab) as u32).collect()
}

/// Put `block` in force for its (stack, layer, head, matrix), replacing an earlier edit of it
/// (as `Lab.setBlock` does).
fn set(opts: &mut RunOptions, edit: Override) {
    opts.overrides.retain(|o| {
        !(o.stack == edit.stack && o.layer == edit.layer && o.head == edit.head && o.matrix == edit.matrix)
    });
    opts.overrides.push(edit);
}

/// A random target block: (stack, layer, head, matrix) under the current head count.
fn target(rng: &mut Rng, model: &Model, h: usize) -> (Stack, usize, usize, QkMatrix) {
    let stack = [Stack::Encoder, Stack::DecoderSelf, Stack::DecoderCross][rng.below(3)];
    let layers = match stack {
        Stack::Encoder => model.config.num_encoder_layers,
        _ => model.config.num_decoder_layers,
    };
    let matrix = if rng.below(2) == 0 { QkMatrix::Q } else { QkMatrix::K };
    (stack, rng.below(layers), rng.below(h), matrix)
}

fn apply(op: Op, state: &mut State, model: &Model) {
    let c = &model.config;
    let h = state.opts.heads_for(c).unwrap();
    let d_k = c.d_model / h;
    match op {
        Op::NewBlock(seed) => {
            let mut rng = Rng::new(seed);
            let (stack, layer, head, matrix) = target(&mut rng, model, h);
            let values: Vec<f32> = (0..d_k * c.d_model).map(|_| rng.uniform(2.0)).collect();
            set(
                &mut state.opts,
                Override { stack, layer, head, matrix, block: Mat::from_rows(d_k, c.d_model, &values) },
            );
        }
        Op::Drag(seed) => {
            let mut rng = Rng::new(seed);
            // mostly a block already edited (a drag goes on), else a trained one
            let (stack, layer, head, matrix) = match state.opts.overrides.len() {
                n if n > 0 && rng.below(4) > 0 => {
                    let o = &state.opts.overrides[rng.below(n)];
                    (o.stack, o.layer, o.head, o.matrix)
                }
                _ => target(&mut rng, model, h),
            };
            let mut block = match state
                .opts
                .overrides
                .iter()
                .find(|o| (o.stack, o.layer, o.head, o.matrix) == (stack, layer, head, matrix))
            {
                Some(o) => o.block.clone(),
                None => Mat(model.attention(stack, layer).unwrap().block(matrix, head, d_k)),
            };
            let (i, j) = (rng.below(d_k), rng.below(c.d_model));
            block[(i, j)] = match rng.below(4) {
                0 => 0.0,
                1 => -0.0,
                _ => rng.uniform(3.0),
            };
            set(&mut state.opts, Override { stack, layer, head, matrix, block });
        }
        Op::SameBlock(seed) => {
            if !state.opts.overrides.is_empty() {
                let mut rng = Rng::new(seed);
                let o = state.opts.overrides[rng.below(state.opts.overrides.len())].clone();
                set(&mut state.opts, o);
            }
        }
        Op::Heads(seed) => {
            let choices = c.head_choices();
            let next = choices[Rng::new(seed).below(choices.len())];
            if Some(next) != state.opts.heads {
                state.opts.overrides.clear();
                state.opts.knock_out.clear();
            }
            state.opts.heads = Some(next);
        }
        Op::Toggle(seed) => match seed % 4 {
            0 => state.opts.scale = !state.opts.scale,
            1 => state.opts.causal_decoder = !state.opts.causal_decoder,
            2 => state.opts.causal_encoder = !state.opts.causal_encoder,
            _ => state.opts.positional = !state.opts.positional,
        },
        Op::Source(seed) => state.src = ids(&mut Rng::new(seed), c.src_vocab.len()),
        Op::Target(seed) => state.tgt = ids(&mut Rng::new(seed), c.tgt_vocab.len()),
        Op::KnockOut(seed) => {
            let mut rng = Rng::new(seed);
            let (stack, layer, head, _) = target(&mut rng, model, h);
            let k = HeadRef { stack, layer, head };
            match state.opts.knock_out.iter().position(|&x| x == k) {
                Some(i) => {
                    state.opts.knock_out.remove(i);
                }
                None => state.opts.knock_out.push(k),
            }
        }
        Op::Shuffle(seed) => {
            let n = state.opts.knock_out.len();
            if n > 0 {
                let mut rng = Rng::new(seed);
                state.opts.knock_out.rotate_left(rng.below(n));
                let again = state.opts.knock_out[rng.below(n)];
                state.opts.knock_out.push(again); // a head listed twice is knocked out once
            }
        }
        Op::Restore => state.opts.knock_out.clear(),
        Op::Reset => state.opts.overrides.clear(),
        Op::Again => {}
    }
}

/// `Debug` prints `-0.0` and `0.0` apart: equal strings are equal bits (no NaN is ever made).
fn bits<T: std::fmt::Debug>(x: &T) -> String {
    format!("{x:?}")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn an_incremental_run_equals_a_full_recompute_after_any_changes(
        spec in strategies::spec(MAX_LEN),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..24),
    ) {
        let (model, _) = spec.model(seed);
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut state = State {
            src: ids(&mut rng, spec.src_vocab),
            tgt: ids(&mut rng, spec.tgt_vocab),
            opts: RunOptions::default(),
        };
        let mut session = Session::new();
        for (i, &op) in ops.iter().enumerate() {
            apply(op, &mut state, &model);
            // now and then only the encoder, as a page does while an encoder cell is dragged
            if i % 3 == 2 {
                let enc = session.encode(&model, &state.src, &state.opts).unwrap();
                let full = model.encode(&state.src, &state.opts).unwrap();
                prop_assert_eq!(bits(&enc.to_trace(&model).unwrap()), bits(&full), "encoder after op {} {:?}", i, op);
            }
            // or the encoder through one layer only, as a drag frame on a large model does
            if i % 3 == 1 {
                let last = (seed as usize ^ i) % model.config.num_encoder_layers.max(1);
                {
                    let enc = session.encode_through(&model, &state.src, &state.opts, last).unwrap();
                    let full = model.encode(&state.src, &state.opts).unwrap();
                    let fresh = enc.stale_from.unwrap_or(usize::MAX);
                    prop_assert!(fresh > last, "stale from {} after a run through {}", fresh, last);
                    for (l, (got, want)) in enc.layers.iter().zip(&full.layers).enumerate().take(fresh) {
                        prop_assert_eq!(bits(&**got), bits(want), "layer {} through {} after op {}", l, last, i);
                    }
                }
            }
            let staged = session.run(&model, &state.src, &state.tgt, &state.opts).unwrap();
            let full = model.forward(&state.src, &state.tgt, &state.opts).unwrap();
            prop_assert_eq!(bits(&staged.to_trace(&model).unwrap()), bits(&full), "after op {} {:?}", i, op);
        }
    }
}

/// The demo's shape in small: 2 + 2 layers, 2 heads.
fn two_by_two() -> (Model, Vec<u32>, Vec<u32>) {
    let spec = Spec { enc_layers: 2, dec_layers: 2, nhead: 2, d_model: 8, max_len: 8, ..Spec::small() };
    let (model, _) = spec.model(7);
    (model, vec![4, 5, 6, 7], vec![1, 4, 5])
}

fn edit(model: &Model, stack: Stack, layer: usize, value: f32) -> Override {
    let d_k = model.config.d_model / model.config.nhead;
    let mut block = Mat(model.attention(stack, layer).unwrap().block(QkMatrix::Q, 1, d_k));
    block[(0, 0)] = value;
    Override { stack, layer, head: 1, matrix: QkMatrix::Q, block }
}

#[test]
fn a_cross_attention_edit_in_the_last_layer_reuses_the_encoder_and_everything_before_it() {
    let (model, src, tgt) = two_by_two();
    let mut session = Session::new();
    let mut opts = RunOptions::default();
    let a = session.run(&model, &src, &tgt, &opts).unwrap();
    opts.overrides.push(edit(&model, Stack::DecoderCross, 1, 3.0));
    let b = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(Rc::ptr_eq(&a.encoder.as_ref().unwrap().embed, &b.encoder.as_ref().unwrap().embed));
    assert!(a
        .encoder
        .as_ref()
        .unwrap()
        .layers
        .iter()
        .zip(&b.encoder.as_ref().unwrap().layers)
        .all(|(x, y)| Rc::ptr_eq(x, y)));
    assert!(Rc::ptr_eq(&a.encoder.as_ref().unwrap().memory, &b.encoder.as_ref().unwrap().memory));
    assert!(Rc::ptr_eq(&a.decoder.as_ref().unwrap().embed, &b.decoder.as_ref().unwrap().embed));
    let (la, lb) = (&a.decoder.as_ref().unwrap().layers, &b.decoder.as_ref().unwrap().layers);
    assert!(Rc::ptr_eq(&la[0].self_attn, &lb[0].self_attn));
    assert!(Rc::ptr_eq(la[0].cross_attn.as_ref().unwrap(), lb[0].cross_attn.as_ref().unwrap()));
    assert!(Rc::ptr_eq(&la[0].ffn, &lb[0].ffn));
    assert!(Rc::ptr_eq(&la[1].self_attn, &lb[1].self_attn));
    assert!(!Rc::ptr_eq(la[1].cross_attn.as_ref().unwrap(), lb[1].cross_attn.as_ref().unwrap()));
    assert!(!Rc::ptr_eq(&la[1].ffn, &lb[1].ffn));
    assert!(!Rc::ptr_eq(&a.decoder.as_ref().unwrap().output, &b.decoder.as_ref().unwrap().output));
    assert_ne!(a.decoder.as_ref().unwrap().output, b.decoder.as_ref().unwrap().output);
    // the same edit again: nothing is recomputed
    let c = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(Rc::ptr_eq(&b.decoder.as_ref().unwrap().output, &c.decoder.as_ref().unwrap().output));
}

#[test]
fn an_encode_through_layer_0_leaves_layer_1_and_the_memory_old_until_an_encode_reaches_them() {
    let (model, src, _) = two_by_two();
    let mut session = Session::new();
    let mut opts = RunOptions::default();
    let a = session.encode(&model, &src, &opts).unwrap();
    assert_eq!(a.stale_from, None);
    opts.overrides.push(edit(&model, Stack::Encoder, 0, 2.5));
    let full = model.encode(&src, &opts).unwrap();
    let b = session.encode_through(&model, &src, &opts, 0).unwrap();
    assert_eq!(b.stale_from, Some(1));
    assert_eq!(bits(&*b.layers[0]), bits(&full.layers[0]), "the dragged layer is current");
    assert!(Rc::ptr_eq(&a.layers[1], &b.layers[1]) && Rc::ptr_eq(&a.memory, &b.memory), "the rest is the last run's");
    assert_ne!(bits(&*b.layers[1]), bits(&full.layers[1]));
    // the same edit again, through layer 0: layer 0 is reused, layer 1 is still owed
    let c = session.encode_through(&model, &src, &opts, 0).unwrap();
    assert!(Rc::ptr_eq(&b.layers[0], &c.layers[0]));
    assert_eq!(c.stale_from, Some(1));
    // through layer 1 (or a whole run): caught up, layer 0 not recomputed
    let d = session.encode_through(&model, &src, &opts, 1).unwrap();
    assert_eq!(d.stale_from, None);
    assert!(Rc::ptr_eq(&b.layers[0], &d.layers[0]));
    assert_eq!(bits(&d.to_trace(&model).unwrap()), bits(&full));
    // a first encode has nothing old to show: it computes every layer
    let first = Session::new().encode_through(&model, &src, &opts, 0).unwrap();
    assert_eq!((first.stale_from, bits(&first.to_trace(&model).unwrap())), (None, bits(&full)));
}

#[test]
fn an_encoder_edit_in_layer_1_reuses_layer_0_and_reruns_every_cross_attention() {
    let (model, src, tgt) = two_by_two();
    let mut session = Session::new();
    let mut opts = RunOptions::default();
    let a = session.run(&model, &src, &tgt, &opts).unwrap();
    opts.overrides.push(edit(&model, Stack::Encoder, 1, -2.0));
    let b = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(Rc::ptr_eq(&a.encoder.as_ref().unwrap().layers[0], &b.encoder.as_ref().unwrap().layers[0]));
    assert!(!Rc::ptr_eq(&a.encoder.as_ref().unwrap().layers[1], &b.encoder.as_ref().unwrap().layers[1]));
    assert!(!Rc::ptr_eq(&a.encoder.as_ref().unwrap().memory, &b.encoder.as_ref().unwrap().memory));
    // the decoder's self-attention does not read the memory; its cross-attention does
    assert!(Rc::ptr_eq(
        &a.decoder.as_ref().unwrap().layers[0].self_attn,
        &b.decoder.as_ref().unwrap().layers[0].self_attn
    ));
    assert!(!Rc::ptr_eq(
        a.decoder.as_ref().unwrap().layers[0].cross_attn.as_ref().unwrap(),
        b.decoder.as_ref().unwrap().layers[0].cross_attn.as_ref().unwrap()
    ));
}

#[test]
fn knocking_out_a_cross_head_in_the_last_layer_reuses_everything_before_it_and_restoring_recomputes() {
    let (model, src, tgt) = two_by_two();
    let mut session = Session::new();
    let mut opts = RunOptions::default();
    let a = session.run(&model, &src, &tgt, &opts).unwrap();
    opts.knock_out.push(HeadRef { stack: Stack::DecoderCross, layer: 1, head: 0 });
    let b = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(Rc::ptr_eq(&a.encoder.as_ref().unwrap().memory, &b.encoder.as_ref().unwrap().memory));
    let (la, lb) = (&a.decoder.as_ref().unwrap().layers, &b.decoder.as_ref().unwrap().layers);
    assert!(Rc::ptr_eq(&la[0].ffn, &lb[0].ffn));
    assert!(Rc::ptr_eq(&la[1].self_attn, &lb[1].self_attn));
    assert!(!Rc::ptr_eq(la[1].cross_attn.as_ref().unwrap(), lb[1].cross_attn.as_ref().unwrap()));
    assert!(lb[1].cross_attn.as_ref().unwrap().sublayer.heads[0].knocked_out);
    assert_ne!(a.decoder.as_ref().unwrap().output, b.decoder.as_ref().unwrap().output);
    // the same head listed again: nothing is recomputed
    opts.knock_out.push(HeadRef { stack: Stack::DecoderCross, layer: 1, head: 0 });
    let c = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(Rc::ptr_eq(&b.decoder.as_ref().unwrap().output, &c.decoder.as_ref().unwrap().output));
    // restored: recomputed, and the very numbers of the first run
    opts.knock_out.clear();
    let d = session.run(&model, &src, &tgt, &opts).unwrap();
    assert!(!Rc::ptr_eq(
        c.decoder.as_ref().unwrap().layers[1].cross_attn.as_ref().unwrap(),
        d.decoder.as_ref().unwrap().layers[1].cross_attn.as_ref().unwrap()
    ));
    assert_eq!(bits(&a.to_trace(&model).unwrap()), bits(&d.to_trace(&model).unwrap()));
}

#[test]
fn an_error_leaves_the_session_usable() {
    let (model, src, tgt) = two_by_two();
    let mut session = Session::new();
    let opts = RunOptions::default();
    assert!(session.run(&model, &src, &[99], &opts).is_err());
    assert!(session.run(&model, &[], &tgt, &opts).is_err());
    let bad = RunOptions { heads: Some(3), ..RunOptions::default() };
    assert!(session.run(&model, &src, &tgt, &bad).is_err());
    let staged = session.run(&model, &src, &tgt, &opts).unwrap();
    assert_eq!(staged.to_trace(&model).unwrap(), model.forward(&src, &tgt, &opts).unwrap());
}

#[test]
fn single_stack_families_run_incrementally_as_a_full_pass() {
    // A BERT-style and a GPT-2-style model from transformers (tests/fixtures/families): a run
    // after each change equals Model::forward bit for bit, and an edit of the last layer
    // reuses the first layer's stage.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/families");
    for (name, stack, src, tgt) in [
        ("bert_mlm_untied_gelu_new", Stack::Encoder, vec![2u32, 9, 4, 11, 3], vec![]),
        ("gpt2_untied_gelu_3layers", Stack::DecoderSelf, vec![], vec![5u32, 7, 9, 11]),
    ] {
        let model = Model::from_safetensors(&std::fs::read(dir.join(format!("{name}.safetensors"))).unwrap()).unwrap();
        let mut session = Session::new();
        let mut opts = RunOptions::default();
        let a = session.run(&model, &src, &tgt, &opts).unwrap();
        assert_eq!(bits(&a.to_trace(&model).unwrap()), bits(&model.forward(&src, &tgt, &opts).unwrap()), "{name}");
        let last = model.config.sites()[0].layers - 1;
        opts.overrides.push(edit(&model, stack, last, 1.5));
        opts.knock_out.push(HeadRef { stack, layer: 0, head: 1 });
        let b = session.run(&model, &src, &tgt, &opts).unwrap();
        assert_eq!(bits(&b.to_trace(&model).unwrap()), bits(&model.forward(&src, &tgt, &opts).unwrap()), "{name}");
        assert_eq!(b.encoder.is_some(), stack == Stack::Encoder, "{name}: only the stacks the model has");
        assert_eq!(b.decoder.is_some(), stack == Stack::DecoderSelf, "{name}");
        opts.knock_out.clear();
        let c = session.run(&model, &src, &tgt, &opts).unwrap();
        let first = |s: &attnscope::incremental::Staged| match stack {
            Stack::Encoder => Rc::as_ptr(&s.encoder.as_ref().unwrap().layers[0]) as usize,
            _ => Rc::as_ptr(&s.decoder.as_ref().unwrap().layers[0].ffn) as usize,
        };
        assert_ne!(first(&b), first(&c), "{name}: restoring layer 0's head recomputes it");
        let d = session.run(&model, &src, &tgt, &opts).unwrap();
        assert_eq!(first(&c), first(&d), "{name}: nothing changed, nothing recomputed");
        assert_eq!(bits(&d.to_trace(&model).unwrap()), bits(&model.forward(&src, &tgt, &opts).unwrap()), "{name}");
    }
}
