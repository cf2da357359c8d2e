//! The encoder's numeric kernels: int8 matrix products (weights quantised once per output row,
//! activations per token), f32 products for attention, and the element-wise steps (GELU, softmax,
//! layer norm) written so the compiler vectorises them.
//!
//! The int8 product runs on AVX-512 VNNI (`vpdpbusd`: 64 multiply-adds of u8 × i8 per
//! instruction) where the CPU has it, else on a portable loop that computes the same integers
//! (integer sums are exact, so both give bit-identical results, which the tests check).
//! [`int8_fast`] says which one runs; the embedder only defaults to int8 when it is the fast one.

use crate::simd::multiversion;

/// Rows of a micro-tile (tokens).
#[cfg(target_arch = "x86_64")]
const MR: usize = 6;
/// Columns of a micro-tile (outputs): two 16-lane vectors.
const NR: usize = 32;
/// Rows of activations kept hot while every weight panel streams past them.
#[cfg(target_arch = "x86_64")]
const MB: usize = 60;
/// Inputs sharing one activation scale. Per-token scales alone lose too much where a few
/// channels carry outliers (BERT's do): cosine 0.994 to the f32 vectors, against ≥ 0.998 with
/// a scale per 64 inputs, for about a tenth more work in the kernel.
const KB: usize = 64;

/// Whether the int8 product has its vector kernel on this CPU.
pub(crate) fn int8_fast() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A weight matrix `W` (`n` outputs × `k` inputs) quantised to i8 per output row and packed in
/// panels of [`NR`] outputs × 4 inputs, the layout the VNNI kernel reads.
pub(crate) struct QMatrix {
    n: usize,
    k: usize,
    /// `k` rounded up to a multiple of [`KB`].
    kp: usize,
    packed: Vec<i8>,
    /// Per output: the dequantisation scale.
    scale: Vec<f32>,
    /// Per panel, per block of [`KB`] inputs, per output of the panel: −128 × the sum of the
    /// block's quantised weights (activations carry a +128 offset; accumulators start here).
    start: Vec<i32>,
}

impl QMatrix {
    /// Quantises `w` (row-major, `n` × `k`).
    pub(crate) fn new(w: &[f32], n: usize, k: usize) -> QMatrix {
        debug_assert_eq!(w.len(), n * k);
        let kp = k.div_ceil(KB) * KB;
        let panels = n.div_ceil(NR);
        let blocks = kp / KB;
        let mut packed = vec![0i8; panels * NR * kp];
        let mut scale = vec![1.0f32; n];
        let mut start = vec![0i32; panels * blocks * NR];
        for o in 0..n {
            let row = &w[o * k..(o + 1) * k];
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / 127.0 } else { 1.0 };
            scale[o] = s;
            let (panel, col) = (o / NR, o % NR);
            for (i, &v) in row.iter().enumerate() {
                let q = (v / s).round().clamp(-127.0, 127.0) as i8;
                start[(panel * blocks + i / KB) * NR + col] -= 128 * i32::from(q);
                packed[panel * NR * kp + (i / 4) * NR * 4 + col * 4 + i % 4] = q;
            }
        }
        QMatrix {
            n,
            k,
            kp,
            packed,
            scale,
            start,
        }
    }

    pub(crate) fn inputs(&self) -> usize {
        self.k
    }
}

/// Activations quantised per row and block of [`KB`] inputs: `u8 = round(x / scale) + 128`,
/// rows padded to a whole block with the zero point.
#[derive(Default)]
pub(crate) struct QRows {
    data: Vec<u8>,
    /// Per row, per block.
    scale: Vec<f32>,
    kp: usize,
    rows: usize,
}

impl QRows {
    /// Quantises `m` rows of `k` values (`x` row-major).
    pub(crate) fn quantize(&mut self, x: &[f32], m: usize, k: usize) {
        let kp = k.div_ceil(KB) * KB;
        let blocks = kp / KB;
        self.data.clear();
        self.data.resize(m * kp, 128);
        self.scale.clear();
        self.scale.resize(m * blocks, 1.0);
        self.kp = kp;
        self.rows = m;
        for r in 0..m {
            quantize_row(
                &x[r * k..(r + 1) * k],
                &mut self.data[r * kp..(r + 1) * kp],
                &mut self.scale[r * blocks..(r + 1) * blocks],
            );
        }
    }
}

/// Sum and maximum over eight lanes, so reductions vectorise (a single running f32 would not:
/// float addition is not associative, so the compiler keeps it sequential).
#[inline(always)]
fn lanes(x: &[f32], f: impl Fn(f32) -> f32, op: impl Fn(f32, f32) -> f32, init: f32) -> f32 {
    let mut m = [init; 8];
    let mut chunks = x.chunks_exact(8);
    for c in &mut chunks {
        for j in 0..8 {
            m[j] = op(m[j], f(c[j]));
        }
    }
    let mut acc = m.iter().fold(init, |a, &b| op(a, b));
    for &v in chunks.remainder() {
        acc = op(acc, f(v));
    }
    acc
}

#[inline(always)]
fn sum(x: &[f32]) -> f32 {
    lanes(x, |v| v, |a, b| a + b, 0.0)
}

#[inline(always)]
fn max(x: &[f32], f: impl Fn(f32) -> f32) -> f32 {
    lanes(x, f, |a, b| if b > a { b } else { a }, f32::NEG_INFINITY)
}

multiversion! {
    /// One row, block by block: the block's scale, then `u8 = round(x / scale) + 128`.
    fn quantize_row(x: &[f32], out: &mut [u8], scales: &mut [f32]) -> () {
        for ((block, out), scale) in x.chunks(KB).zip(out.chunks_mut(KB)).zip(scales) {
            let top = max(block, f32::abs);
            let s = if top > 0.0 { top / 127.0 } else { 1.0 };
            *scale = s;
            let inv = 1.0 / s;
            for (o, &v) in out.iter_mut().zip(block) {
                // Adding 2^23 leaves the rounded integer in the low mantissa bits: a rounding
                // that vectorises (`round` and saturating casts do not, or poorly).
                let t = (v * inv).clamp(-127.0, 127.0) + (128.0 + 8_388_608.0);
                *o = t.to_bits() as u8;
            }
        }
    }
}

/// `y[m × n] = dequant(a · Wᵀ) + bias`, with `a` already quantised.
pub(crate) fn matmul_i8(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    assert_eq!(
        a.kp, w.kp,
        "int8 product: activations and weights disagree on width"
    );
    let (m, n) = (a.rows, w.n);
    assert!(y.len() >= m * n && bias.len() == n);
    #[cfg(target_arch = "x86_64")]
    if int8_fast() {
        // SAFETY: the CPU has AVX-512F and VNNI (checked just above); every pointer the kernel
        // reads or writes stays inside `a.data`, `w.packed` and `y`, whose sizes are asserted
        // above and follow from the packing (see `vnni::product`).
        unsafe { vnni::product(a, w, bias, y) };
        return;
    }
    portable_product(a, w, bias, y);
}

/// The same sums as the VNNI kernel, in the same order, one output at a time.
fn portable_product(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    let (m, n, kp) = (a.rows, w.n, w.kp);
    let blocks = kp / KB;
    for r in 0..m {
        let row = &a.data[r * kp..(r + 1) * kp];
        for o in 0..n {
            let (panel, col) = (o / NR, o % NR);
            let base = panel * NR * kp;
            let mut f = 0f32;
            for b in 0..blocks {
                let mut acc = w.start[(panel * blocks + b) * NR + col];
                for g in b * KB / 4..(b + 1) * KB / 4 {
                    let wq = &w.packed[base + g * NR * 4 + col * 4..][..4];
                    for j in 0..4 {
                        acc += i32::from(row[g * 4 + j]) * i32::from(wq[j]);
                    }
                }
                f = (acc as f32).mul_add(a.scale[r * blocks + b], f);
            }
            y[r * n + o] = f.mul_add(w.scale[o], bias[o]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::{KB, MB, MR, NR, QMatrix, QRows};
    use std::arch::x86_64::*;

    /// Blocks of [`MB`] rows; inside a block every panel of [`NR`] outputs; inside a panel,
    /// micro-tiles of [`MR`] rows.
    #[target_feature(enable = "avx512f,avx512vnni")]
    pub(super) unsafe fn product(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
        let m = a.rows;
        let panels = w.n.div_ceil(NR);
        let mut r0 = 0;
        while r0 < m {
            let r_end = (r0 + MB).min(m);
            for p in 0..panels {
                let mut r = r0;
                while r < r_end {
                    let rows = (r_end - r).min(MR);
                    // SAFETY: rows r..r+rows are inside `a` and `y`; panel p is inside
                    // `w.packed` (panels × NR × kp bytes); the caller checked the features.
                    unsafe {
                        match rows {
                            6 => tile::<6>(a, w, bias, y, r, p),
                            5 => tile::<5>(a, w, bias, y, r, p),
                            4 => tile::<4>(a, w, bias, y, r, p),
                            3 => tile::<3>(a, w, bias, y, r, p),
                            2 => tile::<2>(a, w, bias, y, r, p),
                            _ => tile::<1>(a, w, bias, y, r, p),
                        }
                    }
                    r += rows;
                }
            }
            r0 = r_end;
        }
    }

    /// One micro-tile: `R` rows × [`NR`] outputs of panel `p`, over all inputs. Each block of
    /// [`KB`] inputs sums in i32 (starting from the block's offset correction), then joins an
    /// f32 sum at the row's scale for that block.
    #[target_feature(enable = "avx512f,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize>(
        a: &QRows,
        w: &QMatrix,
        bias: &[f32],
        y: &mut [f32],
        r: usize,
        p: usize,
    ) {
        let (n, kp) = (w.n, w.kp);
        let blocks = kp / KB;
        // SAFETY: rows r..r+R of `a` (kp bytes and `blocks` scales each), panel p of `w.packed`
        // (NR·kp bytes) and of `w.start` (blocks·NR values) are inside their buffers (the
        // caller's loop bounds); stores go to local arrays.
        unsafe {
            let mut sum = [[_mm512_setzero_ps(); 2]; R];
            let wp = w.packed.as_ptr().add(p * NR * kp);
            let ap = a.data.as_ptr().add(r * kp);
            let sp = a.scale.as_ptr().add(r * blocks);
            for b in 0..blocks {
                let st = w.start.as_ptr().add((p * blocks + b) * NR);
                let s0 = _mm512_loadu_si512(st.cast());
                let s1 = _mm512_loadu_si512(st.add(16).cast());
                let mut acc = [[s0, s1]; R];
                for g in b * KB / 4..(b + 1) * KB / 4 {
                    let b0 = _mm512_loadu_si512(wp.add(g * NR * 4).cast());
                    let b1 = _mm512_loadu_si512(wp.add(g * NR * 4 + 64).cast());
                    for (i, row) in acc.iter_mut().enumerate() {
                        let v = _mm512_set1_epi32(
                            ap.add(i * kp + g * 4).cast::<i32>().read_unaligned(),
                        );
                        row[0] = _mm512_dpbusd_epi32(row[0], v, b0);
                        row[1] = _mm512_dpbusd_epi32(row[1], v, b1);
                    }
                }
                for i in 0..R {
                    let sa = _mm512_set1_ps(*sp.add(i * blocks + b));
                    sum[i][0] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[i][0]), sa, sum[i][0]);
                    sum[i][1] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[i][1]), sa, sum[i][1]);
                }
            }
            // y = sum · scale_out + bias, 16 outputs at a time (masked at the matrix's edge).
            let c0 = p * NR;
            let cols = (n - c0).min(NR);
            for half in 0..2 {
                let c = c0 + half * 16;
                let width = cols.saturating_sub(half * 16).min(16);
                if width == 0 {
                    continue;
                }
                let mask: __mmask16 = if width == 16 { !0 } else { (1u16 << width) - 1 };
                let scale = _mm512_maskz_loadu_ps(mask, w.scale.as_ptr().add(c));
                let b = _mm512_maskz_loadu_ps(mask, bias.as_ptr().add(c));
                for (i, row) in sum.iter().enumerate() {
                    let out = y.as_mut_ptr().add((r + i) * n + c);
                    _mm512_mask_storeu_ps(out, mask, _mm512_fmadd_ps(row[half], scale, b));
                }
            }
        }
    }
}

/// `y[m × n] = x[m × k] · Wᵀ + bias` in f32 (`w` row-major `n` × `k`).
pub(crate) fn matmul_f32(
    x: &[f32],
    w: &[f32],
    bias: &[f32],
    m: usize,
    n: usize,
    k: usize,
    y: &mut [f32],
) {
    for r in 0..m {
        y[r * n..(r + 1) * n].copy_from_slice(bias);
    }
    // SAFETY: the strides describe x (m × k, row-major), Wᵀ (k × n, read from row-major W) and
    // y (m × n, row-major), all inside their slices; dst = 1·dst + 1·x·Wᵀ.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            y.as_mut_ptr(),
            1,
            n as isize,
            true,
            x.as_ptr(),
            1,
            k as isize,
            w.as_ptr(),
            k as isize,
            1,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// One operand of a strided f32 product (attention reads Q, K and V in place this way): its
/// data, the offset of its first element, its row stride and its column stride.
pub(crate) struct Strided<'a> {
    pub data: &'a [f32],
    pub offset: usize,
    pub rs: usize,
    pub cs: usize,
}

impl Strided<'_> {
    fn fits(&self, rows: usize, cols: usize) -> bool {
        rows == 0
            || cols == 0
            || self.offset + (rows - 1) * self.rs + (cols - 1) * self.cs < self.data.len()
    }
}

/// `dst = lhs · rhs` (dst row-major with row stride `dst_rs`, starting at `dst_off`).
#[allow(
    clippy::too_many_arguments,
    reason = "a strided product names its three dimensions and three matrices"
)]
pub(crate) fn matmul_strided(
    m: usize,
    n: usize,
    k: usize,
    lhs: Strided<'_>,
    rhs: Strided<'_>,
    dst: &mut [f32],
    dst_off: usize,
    dst_rs: usize,
) {
    assert!(lhs.fits(m, k) && rhs.fits(k, n));
    assert!(m == 0 || n == 0 || dst_off + (m - 1) * dst_rs + n <= dst.len());
    // SAFETY: the asserts above keep every element gemm touches inside the three slices.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(dst_off),
            1,
            dst_rs as isize,
            false,
            lhs.data.as_ptr().add(lhs.offset),
            lhs.cs as isize,
            lhs.rs as isize,
            rhs.data.as_ptr().add(rhs.offset),
            rhs.cs as isize,
            rhs.rs as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// `e^x` to about 2 ulp for x in [-87, 88] (clamped outside), branch-free so loops vectorise.
#[inline(always)]
fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = x - n * 0.693_145_75 - n * 1.428_606_8e-6;
    // Taylor-like minimax polynomial of e^r on [-ln2/2, ln2/2].
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (0.166_666_67
                    + r * (0.041_666_668 + r * (0.008_333_452 + r * 0.001_388_889)))));
    // 2^n without a float-to-int cast (which the compiler scalarises): n + 127 + 2^23 holds
    // n + 127 in its low mantissa bits, and shifting them into the exponent field gives 2^n.
    p * f32::from_bits((n + (127.0 + 8_388_608.0)).to_bits() << 23)
}

/// erf(x) (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

multiversion! {
    /// GELU in place: the erf form, or the tanh approximation (`gelu_new`).
    fn gelu(x: &mut [f32], tanh: bool) -> () {
        if tanh {
            for v in x.iter_mut() {
                let u = 0.797_884_6 * (*v + 0.044_715 * *v * *v * *v);
                // tanh(u) = 1 − 2 / (e^{2u} + 1)
                let th = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
                *v = 0.5 * *v * (1.0 + th);
            }
        } else {
            for v in x.iter_mut() {
                *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
            }
        }
    }
}

multiversion! {
    /// Softmax of one row in place, after scaling by `scale`.
    fn softmax(x: &mut [f32], scale: f32) -> () {
        let top = max(x, |v| v);
        for v in x.iter_mut() {
            *v = exp((*v - top) * scale);
        }
        let inv = 1.0 / sum(x);
        for v in x.iter_mut() {
            *v *= inv;
        }
    }
}

multiversion! {
    /// `x = LayerNorm(x + residual)` over one row (`residual` may be empty: plain layer norm).
    fn add_layer_norm(x: &mut [f32], residual: &[f32], gamma: &[f32], beta: &[f32], eps: f32) -> () {
        if !residual.is_empty() {
            for (v, r) in x.iter_mut().zip(residual) {
                *v += *r;
            }
        }
        let n = x.len() as f32;
        let mean = sum(x) / n;
        let var = lanes(x, |v| (v - mean) * (v - mean), |a, b| a + b, 0.0) / n;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in x.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    #[test]
    fn int8_product_matches_f32_and_the_portable_kernel() {
        let mut s = 7;
        for (m, n, k) in [
            (1, 1, 1),
            (3, 5, 7),
            (17, 40, 64),
            (70, 96, 384),
            (9, 33, 130),
        ] {
            let x: Vec<f32> = (0..m * k).map(|_| lcg(&mut s)).collect();
            let w: Vec<f32> = (0..n * k).map(|_| lcg(&mut s) * 0.1).collect();
            let bias: Vec<f32> = (0..n).map(|_| lcg(&mut s)).collect();
            let q = QMatrix::new(&w, n, k);
            let mut a = QRows::default();
            a.quantize(&x, m, k);
            let mut fast = vec![0f32; m * n];
            matmul_i8(&a, &q, &bias, &mut fast);
            let mut slow = vec![0f32; m * n];
            portable_product(&a, &q, &bias, &mut slow);
            assert_eq!(fast, slow, "kernels disagree at {m}×{n}×{k}");
            let mut exact = vec![0f32; m * n];
            matmul_f32(&x, &w, &bias, m, n, k, &mut exact);
            for (i, (f, e)) in fast.iter().zip(&exact).enumerate() {
                // Two 8-bit roundings per term: error well under 2% of the row's magnitude.
                let tol = 0.02 * (k as f32).sqrt() * 0.1 + 1e-3;
                assert!((f - e).abs() < tol, "{m}×{n}×{k} at {i}: {f} vs {e}");
            }
        }
    }

    #[test]
    fn element_wise_steps_match_libm() {
        for i in -800..800 {
            let x = i as f32 / 20.0;
            let (a, b) = (exp(x), x.exp());
            assert!(
                (a - b).abs() <= 4e-7 * b.max(1e-30),
                "exp({x}) = {a}, want {b}"
            );
        }
        let xs: Vec<f32> = (-600..600).map(|i| i as f32 / 100.0).collect();
        let mut g = xs.clone();
        gelu(&mut g, false);
        for (x, y) in xs.iter().zip(&g) {
            let want = 0.5 * f64::from(*x) * (1.0 + libm_erf(f64::from(*x) / 2f64.sqrt()));
            assert!(
                (f64::from(*y) - want).abs() < 1e-6,
                "gelu({x}) = {y}, want {want}"
            );
        }
        let mut row = vec![1.0f32, 2.0, 3.0, -1e9];
        softmax(&mut row, 1.0);
        let e: Vec<f64> = [1.0f64, 2.0, 3.0].iter().map(|v| v.exp()).collect();
        let s: f64 = e.iter().sum();
        for (got, want) in row.iter().zip(e.iter().map(|v| v / s)) {
            assert!((f64::from(*got) - want).abs() < 1e-6);
        }
        assert!(row[3] < 1e-30, "a masked score keeps weight {}", row[3]);
        let mut ln = vec![1.0f32, 2.0, 3.0, 4.0];
        add_layer_norm(&mut ln, &[1.0, 1.0, 1.0, 1.0], &[1.0; 4], &[0.0; 4], 1e-12);
        let want = [-1.341_640_8f32, -0.447_213_6, 0.447_213_6, 1.341_640_8];
        for (a, b) in ln.iter().zip(want) {
            assert!((a - b).abs() < 1e-5);
        }
    }

    /// erf to double precision (series / continued fraction), for checking the fast one.
    fn libm_erf(x: f64) -> f64 {
        // erf via the complementary error function's Chebyshev fit (Numerical Recipes erfc).
        let z = x.abs();
        let t = 1.0 / (1.0 + 0.5 * z);
        let r = t
            * (-z * z - 1.265_512_23
                + t * (1.000_023_68
                    + t * (0.374_091_96
                        + t * (0.096_784_18
                            + t * (-0.186_288_06
                                + t * (0.278_868_07
                                    + t * (-1.135_203_98
                                        + t * (1.488_515_87
                                            + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
                .exp();
        if x >= 0.0 { 1.0 - r } else { r - 1.0 }
    }
}
