//! `y = x W^T + b`, laid out as `torch.nn.Linear`, and the one matrix-product kernel every
//! linear map of the model (projections, feed-forward, generator) runs on.
//!
//! The weights are packed once, at load, into panels of `NR` (8) output columns (the layout of
//! Goto & van de Geijn 2008, "Anatomy of high-performance matrix multiplication", ACM TOMS),
//! so a forward pass never repacks or transposes them. The kernel keeps an `MR x NR` tile of
//! the output in registers and, for each input feature `k`, adds `x[i, k] * W^T[k, j..j+NR]`
//! to every row `i` of the tile. It is plain Rust over fixed-size arrays: the compiler turns
//! each row of the tile into two 4-lane SIMD registers (wasm `simd128`, x86 SSE, NEON). Each
//! output is `b_j + sum_k x_ik W^T_kj` summed in `k` order, one lane per output, a rounded
//! multiply then a rounded add per term, so these builds (and the AVX2 one chosen at run time
//! natively on CPUs without FMA) give the same bits.
//!
//! Two builds differ, each rounding a term once instead of twice where the CPU has a fused
//! multiply-add: the wasm engine built with `relaxed-simd` (the one the page loads where the
//! browser has it; `scripts/build-wasm.sh`) uses `f32x4.relaxed_madd`, about 15% faster in
//! Chromium, and its logits stay within 4.6e-5 of onnxruntime-web's on the demo model
//! (`make bench-compare` checks 1e-4); natively, x86-64 CPUs with AVX2 and FMA run
//! `write_fma` (`vfmadd`), as onnxruntime's own kernels do. Tiles of fewer rows than the full
//! one stay unfused in both, so a row's bits can depend on which tile it fell in (well inside
//! the parity tolerance; the tests bound every kernel against an `f64` sum).

use alloc::vec::Vec;
use core::cell::OnceCell;
use nalgebra::{DMatrix, RowDVector};

/// Output columns per packed panel (two 4-lane SIMD registers per tile row).
const NR: usize = 8;
/// Rows of `x` per output tile: `MR x NR` accumulators fit in the 16 SIMD registers of x86-64
/// with room for the operands.
const MR: usize = 4;

/// A linear map from `d_in` to `d_out` features.
#[derive(Debug, Clone, PartialEq)]
pub struct Linear {
    /// `W^T`, `(d_in, d_out)`.
    w_t: DMatrix<f32>,
    /// `b`, `(1, d_out)`.
    b: RowDVector<f32>,
    /// `W^T` packed for the kernel.
    panels: Panels,
    /// `W` packed for the kernel, made on the first [`Linear::backward`] (whose `dy W` is the
    /// forward product of the transposed map) and kept for the next ones.
    back: OnceCell<Panels>,
}

/// The gradients of a [`Linear`]'s parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearGrad {
    /// Of `W^T`, `(d_in, d_out)`: column-major, the very layout of PyTorch's row-major `weight`
    /// `(d_out, d_in)`.
    pub w_t: DMatrix<f32>,
    /// Of `b`, `(1, d_out)`.
    pub b: RowDVector<f32>,
}

/// How the kernel writes `(n, d_out)`: nalgebra's column-major storage, or row by row (the
/// order JavaScript and other runtimes hand out logits in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Element `(i, j)` at `j * n + i`.
    ColumnMajor,
    /// Element `(i, j)` at `i * d_out + j`.
    RowMajor,
}

impl Linear {
    /// From PyTorch's `weight` `(d_out, d_in)` and `bias` `(d_out)`.
    pub fn from_torch(weight: DMatrix<f32>, bias: RowDVector<f32>) -> Linear {
        Linear::new(weight.transpose(), bias)
    }

    /// From `W^T` `(d_in, d_out)` and `b` `(1, d_out)`.
    pub fn new(w_t: DMatrix<f32>, b: RowDVector<f32>) -> Linear {
        assert_eq!(w_t.ncols(), b.len(), "W^T (d_in, d_out) and b (d_out) disagree");
        Linear { panels: Panels::new(&w_t), back: OnceCell::new(), w_t, b }
    }

    /// `W^T`, `(d_in, d_out)`.
    pub fn w_t(&self) -> &DMatrix<f32> {
        &self.w_t
    }

    /// `b`, `(1, d_out)`.
    pub fn b(&self) -> &RowDVector<f32> {
        &self.b
    }

    /// `(n, d_in) x (d_in, d_out) + (1, d_out) -> (n, d_out)`
    pub fn forward(&self, x: &DMatrix<f32>) -> DMatrix<f32> {
        let mut y = DMatrix::zeros(x.nrows(), self.w_t.ncols()); // (n, d_out)
        self.write(x, Layout::ColumnMajor, y.as_mut_slice());
        y
    }

    /// [`Linear::forward`]'s numbers, row-major: `(n, d_out)` as `n * d_out` values.
    pub fn forward_row_major(&self, x: &DMatrix<f32>) -> Vec<f32> {
        let mut y = alloc::vec![0.0; x.nrows() * self.w_t.ncols()];
        self.write(x, Layout::RowMajor, &mut y);
        y
    }

    /// The gradient through [`Linear::forward`]: its input `x` `(n, d_in)` and the gradient `dy`
    /// `(n, d_out)` of its output -> `dx = dy W` `(n, d_in)` and the parameters' gradients,
    /// `d(W^T) = x^T dy` `(d_in, d_out)` and `db = sum_rows(dy)` `(1, d_out)`.
    /// Both products run on the forward's kernel.
    pub fn backward(&self, x: &DMatrix<f32>, dy: &DMatrix<f32>) -> (DMatrix<f32>, LinearGrad) {
        let d_in = self.w_t.nrows();
        let back = self.back.get_or_init(|| Panels::new(&self.w_t.transpose()));
        let mut dx = DMatrix::zeros(dy.nrows(), d_in); // (n, d_out) x (d_out, d_in) -> (n, d_in)
        product(dy, back, &alloc::vec![0.0; d_in], Layout::ColumnMajor, dx.as_mut_slice());
        let w_t = transposed_product(x, dy); // (d_in, n) x (n, d_out) -> (d_in, d_out)
        let b = dy.row_sum(); // (1, d_out)
        (dx, LinearGrad { w_t, b })
    }

    /// `out = x W^T + b` in `layout`; `x` `(n, d_in)`, `out` `n * d_out` values.
    fn write(&self, x: &DMatrix<f32>, layout: Layout, out: &mut [f32]) {
        assert_eq!(x.ncols(), self.w_t.nrows(), "x has {} features; this map takes {}", x.ncols(), self.w_t.nrows());
        product(x, &self.panels, self.b.as_slice(), layout, out)
    }
}

/// `a b`, `(n, k) x (k, m) -> (n, m)`, on the kernel of [`Linear::forward`] (`b` packed
/// first): the products of the backward passes.
pub fn matmul(a: &DMatrix<f32>, b: &DMatrix<f32>) -> DMatrix<f32> {
    assert_eq!(a.ncols(), b.nrows(), "a has {} columns, b {} rows", a.ncols(), b.nrows());
    let mut out = DMatrix::zeros(a.nrows(), b.ncols()); // (n, m)
    product(a, &Panels::new(b), &alloc::vec![0.0; b.ncols()], Layout::ColumnMajor, out.as_mut_slice());
    out
}

/// `a^T b`, `(n, k)^T (n, m) -> (k, m)`, as a sum of outer products: column `j` of the result
/// gathers `b[t, j] a[t, :]` over the rows `t`, each row of `a` contiguous after one
/// transpose. No packing: the weight gradients of a backward pass, where `n` (tokens) is small.
pub fn transposed_product(a: &DMatrix<f32>, b: &DMatrix<f32>) -> DMatrix<f32> {
    let (n, k) = a.shape();
    assert_eq!(n, b.nrows(), "a has {n} rows, b {}", b.nrows());
    let a_t = a.transpose(); // (k, n): column t is row t of a
    let mut out = DMatrix::zeros(k, b.ncols()); // (k, m)
    if n == 0 || k == 0 {
        return out;
    }
    for (col, b_col) in out.as_mut_slice().chunks_exact_mut(k).zip(b.as_slice().chunks_exact(n)) {
        for (&c, row) in b_col.iter().zip(a_t.as_slice().chunks_exact(k)) {
            col.iter_mut().zip(row).for_each(|(o, &v)| *o += c * v);
        }
    }
    out
}

/// `out = x P + bias` in `layout`: `x` `(n, d_in)`, `panels` a packed `(d_in, d_out)`,
/// `bias` `(d_out)`, `out` `n * d_out` values.
fn product(x: &DMatrix<f32>, panels: &Panels, b: &[f32], layout: Layout, out: &mut [f32]) {
    let (n, d_in) = x.shape();
    let d_out = b.len();
    assert_eq!(out.len(), n * d_out);
    if n == 0 || d_out == 0 {
        return;
    }
    if d_in == 0 {
        // an empty sum: every row is b
        for i in 0..n {
            for (j, &b_j) in b.iter().enumerate() {
                out[layout.index(i, j, n, d_out)] = b_j;
            }
        }
        return;
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA (checked on the line above).
        return unsafe { write_fma(x, panels, b, layout, out) };
    }
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked on the line above).
        return unsafe { write_avx2(x, panels, b, layout, out) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    return write_tiles::<MR>(x, panels, b, layout, out, |xg, panel, bias| {
        // SAFETY: this build has relaxed-simd (the cfg above)
        unsafe { tile_relaxed::<MR>(xg, panel, bias) }
    });
    #[allow(unreachable_code)]
    write_tiles::<MR>(x, panels, b, layout, out, tile::<MR>)
}

impl Layout {
    /// Where element `(i, j)` of an `(n, d_out)` matrix goes.
    #[inline(always)]
    fn index(self, i: usize, j: usize, n: usize, d_out: usize) -> usize {
        match self {
            Layout::ColumnMajor => j * n + i,
            Layout::RowMajor => i * d_out + j,
        }
    }
}

/// The kernel on 8-lane AVX registers, tiles of 8 rows (one register per tile row): no fused
/// multiply-add, so each output gets the very bits of the 4-lane build.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2")]
unsafe fn write_avx2(x: &DMatrix<f32>, panels: &Panels, b: &[f32], layout: Layout, out: &mut [f32]) {
    #[target_feature(enable = "avx2")]
    unsafe fn tile(xg: &[f32], panel: &[f32], bias: &[f32; NR]) -> [[f32; NR]; 8] {
        tile8::<false>(xg, panel, bias)
    }
    write_tiles::<8>(x, panels, b, layout, out, |xg, panel, bias| unsafe { tile(xg, panel, bias) })
}

/// The kernel of [`write_avx2`] with fused multiply-adds (`vfmadd`), on CPUs that have them:
/// each term rounded once instead of twice, as the wasm `relaxed-simd` build does, and twice
/// the arithmetic per instruction. Tiles of fewer than 8 rows stay unfused.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[target_feature(enable = "avx2,fma")]
unsafe fn write_fma(x: &DMatrix<f32>, panels: &Panels, b: &[f32], layout: Layout, out: &mut [f32]) {
    #[target_feature(enable = "avx2,fma")]
    unsafe fn tile(xg: &[f32], panel: &[f32], bias: &[f32; NR]) -> [[f32; NR]; 8] {
        tile8::<true>(xg, panel, bias)
    }
    write_tiles::<8>(x, panels, b, layout, out, |xg, panel, bias| unsafe { tile(xg, panel, bias) })
}

/// [`tile`] for 8 rows on AVX registers, spelled out (left to itself the compiler vectorises an
/// 8 x 8 tile across its rows and spends its time shuffling): `xg` `(d_in, 8)`, `panel`
/// `(d_in, NR)`, one register of `NR` columns per tile row; `FUSED` adds each term with
/// `vfmadd`. Inlined into the callers above, which enable the CPU features it uses.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
unsafe fn tile8<const FUSED: bool>(xg: &[f32], panel: &[f32], bias: &[f32; NR]) -> [[f32; NR]; 8] {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_storeu_ps,
    };
    let mut acc = [_mm256_loadu_ps(bias.as_ptr()); 8];
    for (x, w) in xg.chunks_exact(8).zip(panel.chunks_exact(NR)) {
        let w = _mm256_loadu_ps(w.as_ptr()); // W^T[k, j0..j0 + 8]
        for (a, &x_r) in acc.iter_mut().zip(x) {
            let x_r = _mm256_set1_ps(x_r);
            *a = if FUSED { _mm256_fmadd_ps(x_r, w, *a) } else { _mm256_add_ps(*a, _mm256_mul_ps(x_r, w)) };
        }
    }
    let mut tile = [[0.0f32; NR]; 8];
    for (row, a) in tile.iter_mut().zip(acc) {
        _mm256_storeu_ps(row.as_mut_ptr(), a);
    }
    tile
}

/// [`tile`] for `R` rows with `f32x4.relaxed_madd`: `acc = x_r * w + acc` in one instruction
/// (fused where the CPU has FMA). `xg` `(d_in, R)`, `panel` `(d_in, NR)`. Called with `MR`
/// rows: a 6-row tile (12 accumulators) ran 20% slower in Chromium, its registers spilled.
#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
#[inline(always)]
unsafe fn tile_relaxed<const R: usize>(xg: &[f32], panel: &[f32], bias: &[f32; NR]) -> [[f32; NR]; R] {
    use core::arch::wasm32::{f32x4_relaxed_madd, f32x4_splat, v128, v128_load, v128_store};
    let b = bias.as_ptr() as *const v128;
    let mut acc = [[v128_load(b), v128_load(b.add(1))]; R]; // R rows x 2 registers of 4 columns
    for (x, w) in xg.chunks_exact(R).zip(panel.chunks_exact(NR)) {
        let w = w.as_ptr() as *const v128; // W^T[k, j0..j0 + 8]
        let (w0, w1) = (v128_load(w), v128_load(w.add(1)));
        for (a, &x_r) in acc.iter_mut().zip(x) {
            let x_r = f32x4_splat(x_r);
            a[0] = f32x4_relaxed_madd(x_r, w0, a[0]);
            a[1] = f32x4_relaxed_madd(x_r, w1, a[1]);
        }
    }
    let mut tile = [[0.0f32; NR]; R];
    for (row, a) in tile.iter_mut().zip(acc) {
        let r = row.as_mut_ptr() as *mut v128;
        v128_store(r, a[0]);
        v128_store(r.add(1), a[1]);
    }
    tile
}

/// `out = x W^T + b` with tiles of `M` rows, `full` computing each whole one: `x` `(n, d_in)`
/// with `n, d_in >= 1`, `b` `(d_out)`.
#[inline(always)]
fn write_tiles<const M: usize>(
    x: &DMatrix<f32>,
    panels: &Panels,
    b: &[f32],
    layout: Layout,
    out: &mut [f32],
    full: impl Fn(&[f32], &[f32], &[f32; NR]) -> [[f32; NR]; M],
) {
    let (n, d_in) = x.shape();
    let d_out = b.len();
    // x's rows in groups of M (the last may be shorter), each group feature-major:
    // group g, feature k, row r at g * M * d_in + k * rows_g + r.
    let mut xs = alloc::vec![0.0f32; n * d_in];
    for (k, col) in x.as_slice().chunks_exact(n).enumerate() {
        for (g, rows) in col.chunks(M).enumerate() {
            let at = g * M * d_in + k * rows.len();
            xs[at..at + rows.len()].copy_from_slice(rows);
        }
    }
    for (p, panel) in panels.data.chunks_exact(d_in * NR).enumerate() {
        let j0 = p * NR;
        let cols = NR.min(d_out - j0);
        let mut bias = [0.0f32; NR];
        bias[..cols].copy_from_slice(&b[j0..j0 + cols]);
        for (g, xg) in xs.chunks(M * d_in).enumerate() {
            let put = |out: &mut [f32], tile: &[[f32; NR]]| store(tile, layout, (g * M, j0), (n, d_out), cols, out);
            macro_rules! rows {
                ($($r:literal)*) => {
                    match xg.len() / d_in {
                        r if r == M => put(out, &full(xg, panel, &bias)),
                        $($r if $r < M => put(out, &tile::<$r>(xg, panel, &bias)),)*
                        r => unreachable!("a group of {r} rows"),
                    }
                };
            }
            rows!(7 6 5 4 3 2 1);
        }
    }
}

/// Writes `tile`, rows `i0..` and columns `j0..j0 + cols` of an `(n, d_out)` matrix in
/// `layout`, into `out`.
#[inline(always)]
fn store(
    tile: &[[f32; NR]],
    layout: Layout,
    (i0, j0): (usize, usize),
    (n, d_out): (usize, usize),
    cols: usize,
    out: &mut [f32],
) {
    match layout {
        Layout::RowMajor => {
            for (r, row) in tile.iter().enumerate() {
                let at = (i0 + r) * d_out + j0;
                if cols == NR {
                    // a fixed-size copy: two vector stores, no call to memcpy
                    let dst: &mut [f32; NR] = (&mut out[at..at + NR]).try_into().expect("NR values");
                    *dst = *row;
                } else {
                    out[at..at + cols].iter_mut().zip(row).for_each(|(v, &x)| *v = x);
                }
            }
        }
        Layout::ColumnMajor => {
            for c in 0..cols {
                let at = (j0 + c) * n + i0;
                let column = &mut out[at..at + tile.len()];
                column.iter_mut().zip(tile).for_each(|(v, row)| *v = row[c]);
            }
        }
    }
}

/// `W^T` `(d_in, d_out)` as `ceil(d_out / NR)` panels, each `(d_in, NR)` row-major (the
/// columns past `d_out` are zeros): for each input feature, the `NR` weights of one tile row.
#[derive(Debug, Clone, PartialEq)]
struct Panels {
    data: Vec<f32>,
}

impl Panels {
    fn new(w_t: &DMatrix<f32>) -> Panels {
        let (d_in, d_out) = w_t.shape();
        let mut data = alloc::vec![0.0f32; d_out.div_ceil(NR) * d_in * NR];
        for (j, col) in w_t.column_iter().enumerate() {
            let (p, c) = (j / NR, j % NR);
            for (k, &v) in col.iter().enumerate() {
                data[(p * d_in + k) * NR + c] = v;
            }
        }
        Panels { data }
    }
}

/// One `(R, NR)` tile: `bias + xg panel`, with `xg` `(d_in, R)` (feature-major rows of `x`)
/// and `panel` `(d_in, NR)`. Kept in registers: `R * NR / 4` SIMD accumulators.
#[inline(always)]
fn tile<const R: usize>(xg: &[f32], panel: &[f32], bias: &[f32; NR]) -> [[f32; NR]; R] {
    let mut acc = [*bias; R];
    for (x, w) in xg.chunks_exact(R).zip(panel.chunks_exact(NR)) {
        let x: &[f32; R] = x.try_into().expect("R features");
        let w: &[f32; NR] = w.try_into().expect("NR weights");
        for (row, &x_r) in acc.iter_mut().zip(x) {
            for (a, &w_c) in row.iter_mut().zip(w) {
                *a += x_r * w_c;
            }
        }
    }
    acc
}
