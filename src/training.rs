//! Training a tiny encoder-decoder from scratch on a toy task ([`crate::tasks`]): the exact
//! gradients of [`crate::gradients`], averaged over a batch, and Adam (Kingma & Ba 2015, the
//! paper's optimiser, section 5.3) or plain SGD. What the training playground runs, one step
//! per call, and a native test runs to check that each task is learned.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::{Config, RunOptions};
use crate::error::input_err;
use crate::format::{Source, Tensor};
use crate::tasks::{Example, TaskSpec};
use crate::{Model, Result};

/// The optimiser and its learning rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Optimizer {
    /// `w -= lr * g`.
    Sgd {
        /// Learning rate.
        lr: f32,
    },
    /// Adam with PyTorch's defaults (`betas = (0.9, 0.999)`, `eps = 1e-8`) and bias correction.
    Adam {
        /// Learning rate.
        lr: f32,
    },
}

/// Everything a run is made from: task, model shape, optimiser, batch, seed, run options
/// (scaling, heads, masks, positions, and the switches `residual` and `layer_norm`).
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    /// The task and its sizes.
    pub task: TaskSpec,
    /// Layers in each stack.
    pub layers: usize,
    /// Heads per attention.
    pub heads: usize,
    /// `d_model`.
    pub d_model: usize,
    /// The optimiser.
    pub optimizer: Optimizer,
    /// Examples per step.
    pub batch: usize,
    /// Seeds the initial weights and the stream of examples.
    pub seed: u64,
    /// The run options of every forward and backward pass.
    pub opts: RunOptions,
}

/// What one step measured.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// The step just taken, from 1.
    pub step: usize,
    /// The batch's mean loss before the update.
    pub loss: f32,
    /// Share of the batch's labelled positions whose most probable token was the label
    /// (teacher-forced), before the update.
    pub accuracy: f32,
    /// The norm of each layer's parameter gradient, `("encoder 1", norm)`, ...: the encoder's
    /// layers, then the decoder's.
    pub grad_norms: Vec<(String, f32)>,
    /// Share of the batch's attention rows (every site, layer and head) whose largest weight
    /// is above 0.99: a saturated softmax, through which almost no gradient flows.
    pub saturated: f32,
}

/// A model being trained: its parameters as named tensors, the optimiser's state, the stream
/// of examples.
#[derive(Debug, Clone)]
pub struct Trainer {
    /// What the run is made from.
    pub setup: Setup,
    config: Config,
    /// The parameters, in the model file's names and layout.
    pub params: Vec<Tensor>,
    model: Model,
    /// Adam's first and second moments, per parameter.
    moments: Vec<(Vec<f32>, Vec<f32>)>,
    rng: oorandom::Rand32,
    /// Steps taken.
    pub step: usize,
}

impl Setup {
    /// The model configuration: a post-norm encoder-decoder (the paper's), `layers` + `layers`,
    /// `d_ff = 4 d_model`, ReLU, sinusoidal positions, the task's vocabulary on both sides.
    pub fn config(&self) -> Result<Config> {
        Config::from_json(&self.config_json()?)
    }

    /// [`Setup::config`] as the JSON a model file's metadata holds.
    pub fn config_json(&self) -> Result<String> {
        if self.layers == 0 || self.layers > 8 {
            return Err(input_err!("{} layers: choose 1 to 8", self.layers));
        }
        if !(4..=256).contains(&self.d_model) || self.heads == 0 || self.d_model % self.heads != 0 {
            return Err(input_err!(
                "d_model {} with {} heads: d_model 4 to 256, divisible by the heads",
                self.d_model,
                self.heads
            ));
        }
        if !(1..=256).contains(&self.batch) {
            return Err(input_err!("a batch of {}: choose 1 to 256", self.batch));
        }
        let lr = match self.optimizer {
            Optimizer::Sgd { lr } | Optimizer::Adam { lr } => lr,
        };
        if !(lr > 0.0 && lr <= 10.0) {
            return Err(input_err!("learning rate {lr}: choose a number above 0 and at most 10"));
        }
        // the task's tokens are plain words and symbols (no quotes or backslashes to escape)
        let words: Vec<String> = self.task.vocab().iter().map(|w| format!("\"{w}\"")).collect();
        let vocab = format!("[{}]", words.join(","));
        Ok(format!(
            concat!(
                r#"{{"format":1,"d_model":{d},"nhead":{h},"num_encoder_layers":{l},"num_decoder_layers":{l},"#,
                r#""dim_feedforward":{ff},"activation":"relu","norm_first":false,"layer_norm_eps":1e-5,"#,
                r#""positional":"sinusoidal","max_len":{max_len},"scale_embedding":true,"#,
                r#""src_vocab":{vocab},"tgt_vocab":{vocab}}}"#
            ),
            d = self.d_model,
            h = self.heads,
            l = self.layers,
            ff = 4 * self.d_model,
            max_len = self.task.max_len(),
            vocab = vocab,
        ))
    }
}

/// A [`Source`] over tensors in memory.
struct Stored<'a>(&'a [Tensor]);

impl Source for Stored<'_> {
    fn floats(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let t = self.0.iter().find(|t| t.name == name).ok_or_else(|| input_err!("tensor {name:?} is missing"))?;
        if t.shape != shape {
            return Err(input_err!("tensor {name:?} has shape {:?}, expected {shape:?}", t.shape));
        }
        if t.data.iter().any(|v| !v.is_finite()) {
            return Err(input_err!(
                "training diverged: {name} holds a value that is not a finite number (lower the learning rate)"
            ));
        }
        Ok(t.data.clone())
    }
}

impl Trainer {
    /// A fresh model for `setup`, initialised from its seed.
    pub fn new(setup: Setup) -> Result<Trainer> {
        let config = setup.config()?;
        setup.opts.validate(&config)?;
        let (model, mut params) = Model::initialized(config.clone(), setup.seed)?;
        params.sort_by(|a, b| a.name.cmp(&b.name)); // the order of Gradients::tensors
        let moments = params.iter().map(|t| (alloc::vec![0.0; t.data.len()], alloc::vec![0.0; t.data.len()])).collect();
        let rng = oorandom::Rand32::new(setup.seed ^ 0x5eed_7a5c);
        Ok(Trainer { setup, config, params, model, moments, rng, step: 0 })
    }

    /// The model as it is now.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The model file of the parameters as they are now (it opens in the lab).
    pub fn file(&self) -> Result<Vec<u8>> {
        crate::format::write(&self.setup.config_json()?, &self.params)
    }

    /// An example of a stream of its own, seeded by `seed` (the training stream is left as it
    /// is, so showing an example never changes the run).
    pub fn sample(&self, seed: u64) -> Example {
        self.setup.task.example(&mut oorandom::Rand32::new(seed))
    }

    /// One step: a batch of fresh examples, their mean loss's gradient, one update.
    pub fn step(&mut self) -> Result<StepReport> {
        let batch: Vec<Example> = (0..self.setup.batch).map(|_| self.setup.task.example(&mut self.rng)).collect();
        let opts = &self.setup.opts;
        let mut sum: Vec<Vec<f32>> = self.params.iter().map(|t| alloc::vec![0.0; t.data.len()]).collect();
        let (mut loss, mut right, mut labelled, mut rows, mut saturated) = (0.0f32, 0usize, 0usize, 0usize, 0usize);
        for ex in &batch {
            let (trace, grads) = self.model.gradients(&ex.src, &ex.tgt, &ex.labels, opts)?;
            loss += grads.loss;
            for ((acc, g), p) in sum.iter_mut().zip(grads.tensors(&self.model)).zip(&self.params) {
                debug_assert_eq!(g.name, p.name);
                acc.iter_mut().zip(&g.data).for_each(|(a, b)| *a += b);
            }
            let logits = &trace.decoder()?.logits;
            for (t, &label) in ex.labels.iter().enumerate() {
                if label >= 0 {
                    labelled += 1;
                    right += (logits.row(t).transpose().argmax().0 as i64 == label) as usize;
                }
            }
            for stack in self.config.sites().iter().map(|s| s.stack) {
                for attn in trace.site(stack) {
                    for head in &attn.heads {
                        for i in 0..head.weights.nrows() {
                            rows += 1;
                            saturated += (head.weights.row(i).max() > 0.99) as usize;
                        }
                    }
                }
            }
        }
        let n = batch.len() as f32;
        sum.iter_mut().for_each(|g| g.iter_mut().for_each(|v| *v /= n));
        let grad_norms = self.layer_norms(&sum);
        self.step += 1;
        self.update(&sum);
        self.model = Model::assemble(self.config.clone(), &mut Stored(&self.params))?;
        Ok(StepReport {
            step: self.step,
            loss: loss / n,
            accuracy: right as f32 / labelled.max(1) as f32,
            grad_norms,
            saturated: saturated as f32 / rows.max(1) as f32,
        })
    }

    /// Teacher-forced token accuracy on `n` examples of a stream of their own (seeded by
    /// `seed`, apart from the training stream).
    pub fn evaluate(&self, n: usize, seed: u64) -> Result<f32> {
        let mut rng = oorandom::Rand32::new(seed);
        let (mut right, mut labelled) = (0usize, 0usize);
        for _ in 0..n {
            let ex = self.setup.task.example(&mut rng);
            let logits = self.model.logits(&ex.src, &ex.tgt, &self.setup.opts)?; // (T, V) row-major
            let v = self.config.tgt_vocab.len();
            for (t, &label) in ex.labels.iter().enumerate() {
                let row = &logits[t * v..(t + 1) * v];
                let best = (0..v).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap_or(0);
                labelled += 1;
                right += (best as i64 == label) as usize;
            }
        }
        Ok(right as f32 / labelled.max(1) as f32)
    }

    /// The gradient's norm per layer, from its named tensors.
    fn layer_norms(&self, grads: &[Vec<f32>]) -> Vec<(String, f32)> {
        let mut out = Vec::new();
        for (stack, label) in [("encoder", "encoder"), ("decoder", "decoder")] {
            for l in 0..self.setup.layers {
                let prefix = format!("transformer.{stack}.layers.{l}.");
                let sq: f32 = self
                    .params
                    .iter()
                    .zip(grads)
                    .filter(|(t, _)| t.name.starts_with(&prefix))
                    .map(|(_, g)| g.iter().map(|v| v * v).sum::<f32>())
                    .sum();
                out.push((format!("{label} {}", l + 1), libm::sqrtf(sq)));
            }
        }
        out
    }

    /// One optimiser update of every parameter with the batch's mean gradient `grads`.
    fn update(&mut self, grads: &[Vec<f32>]) {
        let t = self.step as i32;
        for ((param, g), (m, v)) in self.params.iter_mut().zip(grads).zip(&mut self.moments) {
            match self.setup.optimizer {
                Optimizer::Sgd { lr } => param.data.iter_mut().zip(g).for_each(|(w, g)| *w -= lr * g),
                Optimizer::Adam { lr } => {
                    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
                    let (c1, c2) = (1.0 - libm::powf(b1, t as f32), 1.0 - libm::powf(b2, t as f32));
                    for (((w, &g), m), v) in param.data.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                        *m = b1 * *m + (1.0 - b1) * g;
                        *v = b2 * *v + (1.0 - b2) * g * g;
                        *w -= lr * (*m / c1) / (sqrt(*v / c2) + eps);
                    }
                }
            }
        }
    }
}

/// `sqrt(x)`: with std, the CPU's instruction (wasm's `f32.sqrt`); without, libm's portable
/// one, a loop of integer steps (Adam takes one per parameter per step).
#[inline(always)]
fn sqrt(x: f32) -> f32 {
    #[cfg(feature = "std")]
    return x.sqrt();
    #[cfg(not(feature = "std"))]
    libm::sqrtf(x)
}
