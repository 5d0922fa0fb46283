//! The model file: one `.safetensors` file whose tensors are the `state_dict` of the PyTorch
//! wrapper in `train/attnscope_model.py`, and whose `__metadata__["attnscope"]` is the JSON
//! [`Config`]. See README, "Model file format".
//!
//! Loading checks everything before trusting it: the header (through the `safetensors` crate:
//! size, offsets inside the file, no overlaps), the config's dimensions against [`LIMITS`],
//! every expected tensor's presence, dtype (F32, or F16/BF16 widened to F32, or I8 with per-row
//! scales for a 2-D tensor) and shape, that no unexpected tensor is present, and that every value
//! is finite. Nothing is allocated before the sizes it depends on are checked against the file's
//! own length.
//!
//! [`LIMITS`]: crate::config::LIMITS

use alloc::collections::BTreeSet;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use nalgebra::{DMatrix, RowDVector};
use safetensors::tensor::{Metadata, TensorView};
use safetensors::{Dtype, SafeTensorError, SafeTensors};

use crate::attention::MultiHeadAttention;
use crate::config::{Config, Head, Positional};
use crate::decoder::{CrossAttention, Decoder, DecoderLayer};
use crate::encoder::{Encoder, EncoderLayer};
use crate::error::format_err;
use crate::feed_forward::FeedForward;
use crate::head::MlmHead;
use crate::linear::Linear;
use crate::model::Model;
use crate::norm::LayerNorm;
use crate::positional::{sinusoidal, Embeddings};
use crate::tokenizer::Tokenizer;
use crate::Result;

/// The largest header accepted (the vocabularies live there): 16 MiB.
pub const MAX_HEADER: u64 = 16 << 20;

/// Parse a safetensors buffer and read one metadata entry, after checking the header length
/// against [`MAX_HEADER`] and the file's size. The header is parsed once (the vocabularies
/// make it most of a small model's loading time in a browser's first, unoptimised calls).
pub fn open<'a>(bytes: &'a [u8], key: &str) -> Result<(Tensors<'a>, String)> {
    let len: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format_err!("the file is {} bytes long, too short for a safetensors header", bytes.len()))?;
    let n = u64::from_le_bytes(len);
    if n > MAX_HEADER || n > (bytes.len() as u64).saturating_sub(8) {
        return Err(format_err!("header length {n} is larger than the file or than {MAX_HEADER} bytes"));
    }
    // read_metadata checks every tensor's offsets against its dtype and shape, and that the
    // tensors cover the rest of the file exactly
    let (n, meta) = SafeTensors::read_metadata(bytes).map_err(describe)?;
    let value = meta
        .metadata()
        .as_ref()
        .and_then(|m| m.get(key))
        .cloned()
        .ok_or_else(|| format_err!("__metadata__ has no {key:?} entry"))?;
    Ok((Tensors { meta, data: &bytes[8 + n..], used: BTreeSet::new() }, value))
}

/// A safetensors error in words.
fn describe(e: SafeTensorError) -> crate::Error {
    use SafeTensorError as E;
    match e {
        E::InvalidHeader => format_err!("the header is not UTF-8 text"),
        E::InvalidHeaderStart | E::InvalidHeaderDeserialization | E::JsonError(_) => {
            format_err!("the header is not a valid safetensors JSON header")
        }
        E::HeaderTooLarge | E::HeaderTooSmall | E::InvalidHeaderLength => {
            format_err!("the header length does not fit the file")
        }
        E::TensorNotFound(name) => format_err!("tensor {name:?} is missing"),
        E::TensorInvalidInfo | E::InvalidTensorView(..) => {
            format_err!("a tensor's byte range does not match its dtype and shape")
        }
        E::InvalidOffset(name) => format_err!("tensor {name:?} has offsets that overlap or leave gaps"),
        E::MetadataIncompleteBuffer => format_err!("the tensors do not cover the file exactly (truncated or padded?)"),
        E::ValidationOverflow => format_err!("a tensor shape is so large that its size overflows"),
        #[allow(unreachable_patterns)]
        other => format_err!("{other:?}"),
    }
}

/// Reads named tensors out of a file [`open`]ed, remembering which were used.
pub struct Tensors<'a> {
    meta: Metadata,
    /// The file after its header: the tensors' bytes, which the offsets index.
    data: &'a [u8],
    used: BTreeSet<String>,
}

impl<'a> Tensors<'a> {
    /// Tensor `name` as a view of the file's bytes (its offsets were checked by [`open`]).
    fn view(&self, name: &str) -> Option<TensorView<'a>> {
        let info = self.meta.info(name)?;
        let (start, end) = info.data_offsets;
        TensorView::new(info.dtype, info.shape.clone(), self.data.get(start..end)?).ok()
    }

    /// Tensor `name` as row-major `f32`, checked to have `shape` and only finite values.
    ///
    /// A 2-D tensor may also be stored as I8 `(rows, cols)` with a tensor `{name}_scale`
    /// `(rows)` (F32 or F16) beside it: the loader dequantises `w[r][c] = q[r][c] * scale[r]`.
    pub fn floats(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let view = self.view(name).ok_or_else(|| format_err!("tensor {name:?} is missing"))?;
        if view.shape() != shape {
            return Err(format_err!("tensor {name:?} has shape {:?}, expected {shape:?}", view.shape()));
        }
        let data = view.data();
        let values: Vec<f32> = match view.dtype() {
            Dtype::F32 => data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            Dtype::F16 => data.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect(),
            Dtype::BF16 => data.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            Dtype::I8 if shape.len() == 2 => {
                let scales = self.row_scales(name, shape[0])?;
                // (rows, cols) I8 x (rows) scales -> (rows, cols) f32, row-major, a row at a time
                let mut out = Vec::with_capacity(data.len());
                for (row, &s) in data.chunks_exact(shape[1].max(1)).zip(&scales) {
                    out.extend(row.iter().map(|&q| q as i8 as f32 * s));
                }
                out
            }
            Dtype::I8 => {
                return Err(format_err!(
                    "tensor {name:?} is I8, which only 2-D tensors may be (with per-row scales in {:?})",
                    scale_name(name)
                ))
            }
            other => {
                return Err(format_err!("tensor {name:?} has dtype {other:?}; expected F32, F16, BF16 or I8 (2-D)"))
            }
        };
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(format_err!("tensor {name:?} holds a non-finite value at flat index {i}"));
        }
        self.used.insert(name.to_string());
        Ok(values)
    }

    /// The per-row scales of the I8 tensor `name`: `{name}_scale`, `(rows)`, F32 or F16, finite.
    fn row_scales(&mut self, name: &str, rows: usize) -> Result<Vec<f32>> {
        let scale = scale_name(name);
        let view = self
            .view(&scale)
            .ok_or_else(|| format_err!("tensor {name:?} is I8 but its per-row scales {scale:?} are missing"))?;
        if view.shape() != [rows] {
            return Err(format_err!(
                "tensor {scale:?} (scales of I8 {name:?}) has shape {:?}, expected [{rows}]",
                view.shape()
            ));
        }
        let data = view.data();
        let scales: Vec<f32> = match view.dtype() {
            Dtype::F32 => data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            Dtype::F16 => data.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect(),
            other => {
                return Err(format_err!(
                    "tensor {scale:?} (scales of I8 {name:?}) has dtype {other:?}; expected F32 or F16"
                ))
            }
        };
        if let Some(r) = scales.iter().position(|v| !v.is_finite()) {
            return Err(format_err!("tensor {scale:?} (scales of I8 {name:?}) holds a non-finite scale for row {r}"));
        }
        self.used.insert(scale);
        Ok(scales)
    }

    /// Tensor `name` with its raw bytes, checked for `dtype` and `shape`.
    pub fn raw(&mut self, name: &str, dtype: Dtype, shape: &[usize]) -> Result<&'a [u8]> {
        let view = self.view(name).ok_or_else(|| format_err!("tensor {name:?} is missing"))?;
        if view.dtype() != dtype || view.shape() != shape {
            return Err(format_err!(
                "tensor {name:?} is {:?} {:?}, expected {dtype:?} {shape:?}",
                view.dtype(),
                view.shape()
            ));
        }
        self.used.insert(name.to_string());
        Ok(view.data())
    }

    /// Error if the file holds a tensor nobody asked for (a `{name}_scale` whose `name` is not
    /// an I8 tensor included).
    pub fn finish(self) -> Result<()> {
        let names = self.meta.tensors();
        let Some(extra) = names.keys().find(|n| !self.used.contains(n.as_str())) else {
            return Ok(());
        };
        if let Some(base) = extra.strip_suffix(SCALE_SUFFIX) {
            if self.used.contains(base) {
                return Err(format_err!("tensor {extra:?} holds per-row scales, but {base:?} is not stored as I8"));
            }
            if self.meta.info(base).is_none() {
                return Err(format_err!("tensor {extra:?} holds per-row scales, but there is no I8 tensor {base:?}"));
            }
        }
        Err(format_err!("unexpected tensor {extra:?} (not part of this config)"))
    }
}

/// Where the loader takes its tensors from: a model file ([`Tensors`]) or, for a model trained
/// from scratch, freshly initialised values ([`Fresh`]). Only [`Source::floats`] differs; the
/// shapes the model needs are asked for through the other methods.
pub trait Source {
    /// Tensor `name` as row-major `f32` of `shape`.
    fn floats(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>>;

    /// A `(rows, cols)` matrix.
    fn matrix(&mut self, name: &str, rows: usize, cols: usize) -> Result<DMatrix<f32>> {
        Ok(DMatrix::from_row_slice(rows, cols, &self.floats(name, &[rows, cols])?))
    }

    /// A `(n)` vector as a row.
    fn row(&mut self, name: &str, n: usize) -> Result<RowDVector<f32>> {
        Ok(RowDVector::from_row_slice(&self.floats(name, &[n])?))
    }

    /// A PyTorch weight `W` `(d_out, d_in)` as `W^T` `(d_in, d_out)`: `W` row-major is `W^T`
    /// column-major (nalgebra's order), so the values are taken as they are, not reordered.
    fn weight_t(&mut self, name: &str, d_out: usize, d_in: usize) -> Result<DMatrix<f32>> {
        Ok(DMatrix::from_vec(d_in, d_out, self.floats(name, &[d_out, d_in])?))
    }

    /// `name.weight` `(out, in)` and `name.bias` `(out)` as a [`Linear`].
    fn linear(&mut self, name: &str, d_in: usize, d_out: usize) -> Result<Linear> {
        let w_t = self.weight_t(&alloc::format!("{name}.weight"), d_out, d_in)?;
        let b = self.row(&alloc::format!("{name}.bias"), d_out)?;
        Ok(Linear::new(w_t, b))
    }
}

impl Source for Tensors<'_> {
    fn floats(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        Tensors::floats(self, name, shape)
    }
}

/// One named tensor in the model file's layout: row-major values of `shape`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// The model file's name for it.
    pub name: String,
    /// PyTorch's shape.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<f32>,
}

/// A [`Source`] that makes up every tensor asked for, as PyTorch initialises a fresh
/// `nn.Transformer` (its `_reset_parameters`): every matrix from Glorot & Bengio's (2010)
/// uniform `U(-a, a)`, `a = sqrt(6 / (fan_in + fan_out))`, every bias 0, every LayerNorm gain
/// (a 1-D `.weight`) 1. It keeps what it made, in the order asked.
pub struct Fresh {
    rng: oorandom::Rand32,
    /// The tensors made so far.
    pub made: Vec<Tensor>,
}

impl Fresh {
    /// A source seeded with `seed` (the same seed, the same values).
    pub fn new(seed: u64) -> Fresh {
        Fresh { rng: oorandom::Rand32::new(seed), made: Vec::new() }
    }
}

impl Source for Fresh {
    fn floats(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let n: usize = shape.iter().product();
        let data = match shape {
            [rows, cols] => {
                let a = libm::sqrtf(6.0 / (rows + cols) as f32);
                (0..n).map(|_| (self.rng.rand_float() * 2.0 - 1.0) * a).collect()
            }
            _ if name.ends_with(".weight") => alloc::vec![1.0; n],
            _ => alloc::vec![0.0; n],
        };
        self.made.push(Tensor { name: name.to_string(), shape: shape.to_vec(), data: data.clone() });
        Ok(data)
    }
}

/// A safetensors file of `tensors` (F32) with `config` (the attnscope JSON) in its metadata:
/// what [`Model::from_safetensors`] reads back.
pub fn write(config: &str, tensors: &[Tensor]) -> Result<Vec<u8>> {
    let bytes: Vec<Vec<u8>> = tensors.iter().map(|t| t.data.iter().flat_map(|v| v.to_le_bytes()).collect()).collect();
    let views = tensors
        .iter()
        .zip(&bytes)
        .map(|(t, b)| TensorView::new(Dtype::F32, t.shape.clone(), b).map(|v| (t.name.as_str(), v)))
        .collect::<core::result::Result<Vec<_>, _>>()
        .map_err(describe)?;
    let info = Some([(String::from("attnscope"), String::from(config))].into_iter().collect());
    safetensors::tensor::serialize(views, &info).map_err(describe)
}

/// An IEEE 754 half-precision number, given by its bits, as `f32` (exactly: every half is an
/// `f32`). Finite values take no branch, so a loop over a tensor vectorises: the magnitude's 15
/// bits moved up by 13 read as an `f32` exactly 2^112 times too small, normal or subnormal
/// alike (the two exponent biases differ by 127 - 15 = 112), and a multiplication by 2^112,
/// exact too, rescales it. Infinities and NaNs (exponent all ones) keep their mantissa bits.
/// A demo model is mostly F16, and `half`'s conversion, one branchy value at a time, was a
/// quarter of its loading in a browser's first, unoptimised calls.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = u32::from(bits & 0x8000) << 16;
    let magnitude = u32::from(bits & 0x7fff) << 13;
    let value = if magnitude >= 0x7c00 << 13 {
        0x7f80_0000 | magnitude // infinity or NaN
    } else {
        (f32::from_bits(magnitude) * f32::from_bits((127 + 112) << 23)).to_bits()
        // x 2^112
    };
    f32::from_bits(sign | value)
}

/// What follows a tensor's name in the name of its per-row scales.
pub const SCALE_SUFFIX: &str = "_scale";

/// `{name}_scale`: the per-row scales of an I8 tensor `name`.
fn scale_name(name: &str) -> String {
    alloc::format!("{name}{SCALE_SUFFIX}")
}

impl Model {
    /// Load a model file (the bytes of a `.safetensors` file). Never panics on bad input.
    pub fn from_safetensors(bytes: &[u8]) -> Result<Model> {
        let (mut t, meta) = open(bytes, "attnscope")?;
        let config = Config::from_json(&meta)?;
        // The positional table is computed, not read: bound it by what the file could justify.
        if config.max_len.saturating_mul(config.d_model) > bytes.len() {
            return Err(format_err!(
                "max_len * d_model = {} * {} is out of proportion to a {}-byte file",
                config.max_len,
                config.d_model,
                bytes.len()
            ));
        }
        let model = Model::assemble(config, &mut t)?;
        t.finish()?;
        Ok(model)
    }

    /// A model of `config` never trained: PyTorch's initialisation (see [`Fresh`]), seeded,
    /// and the tensors it was made of, in the file's names and layout.
    pub fn initialized(config: Config, seed: u64) -> Result<(Model, Vec<Tensor>)> {
        let mut fresh = Fresh::new(seed);
        let model = Model::assemble(config, &mut fresh)?;
        Ok((model, fresh.made))
    }

    /// The model of `config` from the tensors `t` gives it.
    pub(crate) fn assemble(config: Config, t: &mut dyn Source) -> Result<Model> {
        let c = &config;
        let d = c.d_model;

        let norm = |t: &mut dyn Source, name: &str| -> Result<LayerNorm> {
            Ok(LayerNorm {
                gamma: t.row(&alloc::format!("{name}.weight"), d)?,
                beta: t.row(&alloc::format!("{name}.bias"), d)?,
                eps: c.layer_norm_eps,
            })
        };
        let embed = |t: &mut dyn Source, side: &str, vocab: usize| -> Result<Embeddings> {
            // (vocab, d_model) row-major is (d_model, vocab) column-major: no reordering
            let table_t = DMatrix::from_vec(d, vocab, t.floats(&alloc::format!("{side}_embed.weight"), &[vocab, d])?);
            let positions = match c.positional {
                Positional::Sinusoidal => Some(sinusoidal(c.max_len, d)),
                Positional::Learned => Some(t.matrix(&alloc::format!("{side}_pos.weight"), c.max_len, d)?),
                Positional::None => None,
            };
            let scale = if c.scale_embedding { libm::sqrtf(d as f32) } else { 1.0 };
            let token_type = if side == "src" && c.type_vocab_size > 0 {
                let types = t.floats("src_type.weight", &[c.type_vocab_size, d])?; // (types, d_model)
                Some(RowDVector::from_row_slice(&types[..d])) // type 0
            } else {
                None
            };
            let norm = if c.embed_norm { Some(norm(t, &alloc::format!("{side}_embed_norm"))?) } else { None };
            Ok(Embeddings { table_t, positions, scale, token_type, norm })
        };
        let mha = |t: &mut dyn Source, name: &str| -> Result<MultiHeadAttention> {
            let w_t = t.weight_t(&alloc::format!("{name}.in_proj_weight"), 3 * d, d)?; // [W_Q; W_K; W_V]^T (d, 3d)
            let b = t.floats(&alloc::format!("{name}.in_proj_bias"), &[3 * d])?;
            let part = |i: usize| {
                Linear::new(w_t.columns(i * d, d).into_owned(), RowDVector::from_row_slice(&b[i * d..(i + 1) * d]))
            };
            Ok(MultiHeadAttention {
                w_q: part(0),
                w_k: part(1),
                w_v: part(2),
                w_o: t.linear(&alloc::format!("{name}.out_proj"), d, d)?,
            })
        };
        let ffn = |t: &mut dyn Source, name: &str| -> Result<FeedForward> {
            Ok(FeedForward {
                widen: t.linear(&alloc::format!("{name}.linear1"), d, c.dim_feedforward)?,
                narrow: t.linear(&alloc::format!("{name}.linear2"), c.dim_feedforward, d)?,
                activation: c.activation,
            })
        };
        let final_norm = |t: &mut dyn Source, name: &str| -> Result<Option<LayerNorm>> {
            c.final_norm.then(|| norm(t, name)).transpose()
        };
        // The generator `d_model -> V`: its own weight, or the output side's embedding table
        // (tied: the table's (d_model, V) column-major storage is W^T already); a bias or none.
        let generator = |t: &mut dyn Source, table_t: &DMatrix<f32>| -> Result<Linear> {
            let v = table_t.ncols();
            let w_t = if c.tie_embeddings { table_t.clone() } else { t.weight_t("generator.weight", v, d)? };
            let b = if c.logits_bias { t.row("generator.bias", v)? } else { RowDVector::zeros(v) };
            Ok(Linear::new(w_t, b))
        };

        let encoder = if c.architecture.has_encoder() {
            let embed = embed(&mut *t, "src", c.src_vocab.len())?;
            let mut layers = Vec::new();
            for l in 0..c.num_encoder_layers {
                let p = alloc::format!("transformer.encoder.layers.{l}");
                layers.push(EncoderLayer {
                    self_attn: mha(&mut *t, &alloc::format!("{p}.self_attn"))?,
                    ffn: ffn(&mut *t, &p)?,
                    norm1: norm(&mut *t, &alloc::format!("{p}.norm1"))?,
                    norm2: norm(&mut *t, &alloc::format!("{p}.norm2"))?,
                });
            }
            let norm = final_norm(&mut *t, "transformer.encoder.norm")?;
            Some(Encoder { embed, layers, norm, norm_first: c.norm_first })
        } else {
            None
        };
        let decoder = if c.architecture.has_decoder() {
            let embed = embed(&mut *t, "tgt", c.tgt_vocab.len())?;
            let mut layers = Vec::new();
            for l in 0..c.num_decoder_layers {
                let p = alloc::format!("transformer.decoder.layers.{l}");
                let self_attn = mha(&mut *t, &alloc::format!("{p}.self_attn"))?;
                let cross = if c.architecture.has_encoder() {
                    Some(CrossAttention {
                        attn: mha(&mut *t, &alloc::format!("{p}.multihead_attn"))?,
                        norm: norm(&mut *t, &alloc::format!("{p}.norm2"))?,
                    })
                } else {
                    None
                };
                layers.push(DecoderLayer {
                    self_attn,
                    cross,
                    ffn: ffn(&mut *t, &p)?,
                    norms: [norm(&mut *t, &alloc::format!("{p}.norm1"))?, norm(&mut *t, &alloc::format!("{p}.norm3"))?],
                });
            }
            let norm = final_norm(&mut *t, "transformer.decoder.norm")?;
            let generator = if c.head == Head::Lm { Some(generator(&mut *t, &embed.table_t)?) } else { None };
            Some(Decoder { embed, layers, norm, generator, norm_first: c.norm_first })
        } else {
            None
        };
        let mlm = match (c.head, &encoder) {
            (Head::Mlm, Some(encoder)) => Some(MlmHead {
                dense: t.linear("mlm.dense", d, d)?,
                activation: c.activation,
                norm: norm(&mut *t, "mlm.norm")?,
                generator: generator(&mut *t, &encoder.embed.table_t)?,
            }),
            _ => None,
        };
        let tokenizer = Tokenizer::new(&config)?;
        Ok(Model { config, encoder, decoder, mlm, tokenizer })
    }
}
