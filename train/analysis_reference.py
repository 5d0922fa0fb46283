"""Reference formulas (numpy, float64) for src/analysis.rs: value-weighted attention and rollout.

Used by make_fixtures.py to write the expected tensors the Rust tests compare with (1e-5).

value_weighted  Kobayashi, Kuribayashi, Yokoi & Inui 2020, "Attention is Not Only a Weight:
                Analyzing Transformers with Vector Norms" (EMNLP), section 3: key j adds
                w_ij f(x_j) to query i's output, f(x_j) = v_j W_O^(h); its size is the norm.
rollout         Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers" (ACL),
                section 3: A' = rownorm(0.5 mean_h(A) + 0.5 I), R_l = A'_l R_(l-1); and, for the
                decoder, our path through cross-attention into the source words (see the module
                docs of src/analysis.rs):
                  self:  D <- A'_self D
                  cross: D <- rownorm([0.5 D_tt | 0.5 D_ts + 0.5 mean_h(A_cross) R_enc])
Knocked-out heads are left out of the head means; their value norms are zero because their
columns of out_proj are zero in the model run (the head mask).
"""
import numpy as np


def rownorm(m):
    s = m.sum(-1, keepdims=True)
    return np.where(s > 0, m / np.where(s > 0, s, 1.0), m)


def value_weighted(weights, v, w_o):
    """weights (H, Tq, Tk), v (Tk, d) all heads' values, w_o (d, d) out_proj.weight (out, in).
    -> value_norms (H, Tk), norms (H, Tq, Tk), normalized (H, Tq, Tk)"""
    H = weights.shape[0]
    dk = v.shape[1] // H
    vn, norms = [], []
    for h in range(H):
        sl = slice(h * dk, (h + 1) * dk)
        f = v[:, sl] @ w_o[:, sl].T                  # (Tk, dk) x (dk, d) -> (Tk, d)
        n = np.linalg.norm(f, axis=1)                # (Tk,)
        vn.append(n)
        norms.append(weights[h] * n[None, :])        # (Tq, Tk)
    norms = np.stack(norms)
    return np.stack(vn), norms, rownorm(norms)


def mean_heads(weights, knocked):
    """weights (H, Tq, Tk); knocked: set of head indices left out."""
    keep = [h for h in range(weights.shape[0]) if h not in knocked]
    if not keep:
        return np.zeros(weights.shape[1:])
    return weights[keep].mean(0)


def with_residual(a):
    return rownorm(0.5 * a + 0.5 * np.eye(a.shape[0]))


def rollout(enc, dec_self, cross, knocked):
    """enc [(H, S, S)] per encoder layer, dec_self [(H, T, T)], cross [(H, T, S)];
    knocked: set of (stack, layer, head). -> (encoder [(S, S)], decoder_self [(T, T)], cross [(T, S)])"""
    S = cross[0].shape[2] if cross else enc[0].shape[1]
    r = np.eye(S)
    r_enc = []
    for l, w in enumerate(enc):
        kn = {h for (s, ll, h) in knocked if s == "encoder" and ll == l}
        r = with_residual(mean_heads(w, kn)) @ r     # (S, S) x (S, S) -> (S, S)
        r_enc.append(r)
    T = dec_self[0].shape[1] if dec_self else 0
    d_tt, d_ts = np.eye(T), np.zeros((T, S))
    out_tt, out_ts = [], []
    for l, (ws, wc) in enumerate(zip(dec_self, cross)):
        ks = {h for (s, ll, h) in knocked if s == "decoder_self" and ll == l}
        kc = {h for (s, ll, h) in knocked if s == "decoder_cross" and ll == l}
        a = with_residual(mean_heads(ws, ks))
        d_tt, d_ts = a @ d_tt, a @ d_ts
        if len(kc) < wc.shape[0]:
            joint = np.concatenate([0.5 * d_tt, 0.5 * d_ts + 0.5 * mean_heads(wc, kc) @ r], axis=1)
            joint = rownorm(joint)
            d_tt, d_ts = joint[:, :T], joint[:, T:]
        out_tt.append(d_tt)
        out_ts.append(d_ts)
    return r_enc, out_tt, out_ts
