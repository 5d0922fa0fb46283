//! The matrix-product kernel behind every `Linear` (`src/linear.rs`), against a plain `f64`
//! sum written here, on shapes that exercise every partial tile: any number of rows (tiles of
//! 4 or 8 rows and the rows left over), output widths that are not a multiple of the 8-column
//! panels, and an empty input (`y = b`).
#![cfg(not(target_arch = "wasm32"))]

use attnscope::linear::Linear;
use nalgebra::{DMatrix, RowDVector};
use proptest::prelude::*;

/// `(n, d_in, d_out)` and the values of `x` `(n, d_in)`, `W` `(d_out, d_in)` (PyTorch's
/// layout) and `b` `(d_out)`.
fn case() -> impl Strategy<Value = (usize, usize, usize, Vec<f32>, Vec<f32>, Vec<f32>)> {
    (0usize..=19, 0usize..=70, 1usize..=40).prop_flat_map(|(n, d_in, d_out)| {
        let v = || -4.0f32..4.0;
        (
            Just(n),
            Just(d_in),
            Just(d_out),
            prop::collection::vec(v(), n * d_in),
            prop::collection::vec(v(), d_out * d_in),
            prop::collection::vec(v(), d_out),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn linear_is_x_w_transposed_plus_b((n, d_in, d_out, x, w, b) in case()) {
        let x = DMatrix::from_row_slice(n, d_in, &x);
        let w = DMatrix::from_row_slice(d_out, d_in, &w);
        let linear = Linear::from_torch(w.clone(), RowDVector::from_row_slice(&b));
        let y = linear.forward(&x); // (n, d_out)
        prop_assert_eq!(y.shape(), (n, d_out));
        for i in 0..n {
            for j in 0..d_out {
                let want = b[j] as f64 + (0..d_in).map(|k| x[(i, k)] as f64 * w[(j, k)] as f64).sum::<f64>();
                let bound = 1e-5 * (1.0 + (0..d_in).map(|k| (x[(i, k)] * w[(j, k)]).abs() as f64).sum::<f64>());
                prop_assert!((y[(i, j)] as f64 - want).abs() <= bound, "({i}, {j}): {} vs {want}", y[(i, j)]);
            }
        }
        // the row-major output holds the very same numbers
        let rows = linear.forward_row_major(&x);
        prop_assert_eq!(rows.len(), n * d_out);
        for i in 0..n {
            for j in 0..d_out {
                prop_assert_eq!(rows[i * d_out + j].to_bits(), y[(i, j)].to_bits(), "({}, {})", i, j);
            }
        }
    }
}

#[test]
fn the_weights_read_back_as_given() {
    let w = DMatrix::from_fn(3, 2, |i, j| (i * 2 + j) as f32); // (d_out, d_in)
    let linear = Linear::from_torch(w.clone(), RowDVector::from_row_slice(&[1.0, 2.0, 3.0]));
    assert_eq!(linear.w_t(), &w.transpose());
    assert_eq!(linear.b().as_slice(), &[1.0, 2.0, 3.0]);
}
