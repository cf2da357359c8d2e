//! The encoder's numeric kernels: int8 matrix products (weights quantised once per output row,
//! activations per token), f32 products for attention, and the element-wise steps (GELU, softmax,
//! layer norm) written so the compiler vectorises them.
//!
//! The int8 product has one kernel per instruction set ([`Kernel`]), chosen at run time: AVX-512
//! VNNI (`vpdpbusd`: 64 multiply-adds of u8 × i8 per instruction), AVX-VNNI (the same on 256-bit
//! registers), AVX2 (u8 and i8 widened to i16, `vpmaddwd`: exact, where `vpmaddubsw` would
//! saturate), Arm's dot product (`sdot`), else a portable loop. All compute the same integers
//! (integer sums are exact), so they give bit-identical results, which the tests check.
//! [`int8_fast`] says whether a vector kernel runs; the embedder only defaults to int8 then.
//! `$MINDEX_INT8_KERNEL` forces one (benches, tests): see [`int8_kernel`].

use std::sync::OnceLock;

use crate::error::{Error, Result};
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

/// The int8 product's kernels, fastest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// AVX-512 VNNI: `vpdpbusd` on 512-bit registers (x86_64).
    Vnni,
    /// AVX-VNNI: the VEX-encoded `vpdpbusd` on 256-bit registers (x86_64).
    AvxVnni,
    /// AVX2 + FMA: u8 and i8 widened to i16, `vpmaddwd` then `vpaddd` (x86_64).
    Avx2,
    /// Arm's dot product: `sdot` on u8 − 128 (aarch64).
    Dotprod,
    /// Plain loops, any CPU.
    Portable,
}

const KERNELS: [Kernel; 5] = [
    Kernel::Vnni,
    Kernel::AvxVnni,
    Kernel::Avx2,
    Kernel::Dotprod,
    Kernel::Portable,
];

impl Kernel {
    /// Its name in `$MINDEX_INT8_KERNEL`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kernel::Vnni => "vnni",
            Kernel::AvxVnni => "avxvnni",
            Kernel::Avx2 => "avx2",
            Kernel::Dotprod => "dotprod",
            Kernel::Portable => "portable",
        }
    }

    /// What the CPU needs for it.
    fn needs(self) -> &'static str {
        match self {
            Kernel::Vnni => "x86_64 with AVX-512F and AVX-512 VNNI",
            Kernel::AvxVnni => "x86_64 with AVX2, FMA and AVX-VNNI",
            Kernel::Avx2 => "x86_64 with AVX2 and FMA",
            Kernel::Dotprod => "aarch64 with the dot-product extension",
            Kernel::Portable => "nothing",
        }
    }

    /// Whether this CPU runs it.
    pub(crate) fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx2 = || has!("avx2") && has!("fma");
            match self {
                Kernel::Vnni => has!("avx512f") && has!("avx512vnni"),
                Kernel::AvxVnni => avx2() && has!("avxvnni"),
                Kernel::Avx2 => avx2(),
                Kernel::Dotprod => false,
                Kernel::Portable => true,
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            match self {
                Kernel::Dotprod => std::arch::is_aarch64_feature_detected!("dotprod"),
                Kernel::Portable => true,
                _ => false,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            self == Kernel::Portable
        }
    }
}

/// The fastest kernel this CPU runs.
fn best_kernel() -> Kernel {
    KERNELS
        .into_iter()
        .find(|k| k.available())
        .unwrap_or(Kernel::Portable)
}

/// The kernel `$MINDEX_INT8_KERNEL` names (`vnni`, `avxvnni`, `avx2`, `dotprod` or `portable`),
/// if set, else the fastest this CPU runs. A name this CPU cannot run is refused, never replaced
/// by another kernel (a bench must not measure a kernel it did not ask for): the error surfaces
/// when a model loads. Read once per process.
pub(crate) fn int8_kernel() -> Result<Kernel> {
    static CHOICE: OnceLock<std::result::Result<Kernel, String>> = OnceLock::new();
    CHOICE
        .get_or_init(|| choose_kernel(std::env::var("MINDEX_INT8_KERNEL").ok().as_deref()))
        .clone()
        .map_err(|detail| Error::invalid("MINDEX_INT8_KERNEL", detail))
}

fn choose_kernel(forced: Option<&str>) -> std::result::Result<Kernel, String> {
    let Some(name) = forced.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(best_kernel());
    };
    let runs = || {
        let names: Vec<_> = KERNELS
            .iter()
            .filter(|k| k.available())
            .map(|k| k.name())
            .collect();
        names.join(", ")
    };
    match KERNELS
        .into_iter()
        .find(|k| k.name().eq_ignore_ascii_case(name))
    {
        None => Err(format!(
            "unknown int8 kernel {name:?}: expected vnni, avxvnni, avx2, dotprod or portable \
             (this CPU runs {})",
            runs()
        )),
        Some(k) if !k.available() => Err(format!(
            "this CPU cannot run the {} int8 kernel (it needs {}); it runs {}",
            k.name(),
            k.needs(),
            runs()
        )),
        Some(k) => Ok(k),
    }
}

/// Whether the int8 product runs a vector kernel here (then int8 is the default precision).
pub(crate) fn int8_fast() -> bool {
    int8_kernel().is_ok_and(|k| k != Kernel::Portable)
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
    /// The `sdot` kernel relies on this value: it sums (u8 − 128) × i8 from zero instead.
    start: Vec<i32>,
    /// The weights widened to i16 for the AVX2 kernel, made on its first use (see `wide`).
    #[cfg(target_arch = "x86_64")]
    wide: OnceLock<Vec<i16>>,
}

impl QMatrix {
    /// Quantises `w` (row-major, `n` × `k`).
    pub(crate) fn new(w: &[f32], n: usize, k: usize) -> QMatrix {
        debug_assert_eq!(w.len(), n * k);
        let mut q = vec![0i8; n * k];
        let mut scale = vec![1.0f32; n];
        for o in 0..n {
            let row = &w[o * k..(o + 1) * k];
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let s = if max > 0.0 { max / 127.0 } else { 1.0 };
            scale[o] = s;
            for (q, &v) in q[o * k..(o + 1) * k].iter_mut().zip(row) {
                *q = (v / s).round().clamp(-127.0, 127.0) as i8;
            }
        }
        QMatrix::pack(&q, scale, n, k)
    }

    /// Packs quantised weights `q` (row-major, `n` × `k`) with their per-output scales.
    fn pack(q: &[i8], scale: Vec<f32>, n: usize, k: usize) -> QMatrix {
        let kp = k.div_ceil(KB) * KB;
        let panels = n.div_ceil(NR);
        let blocks = kp / KB;
        let mut packed = vec![0i8; panels * NR * kp];
        let mut start = vec![0i32; panels * blocks * NR];
        for o in 0..n {
            let (panel, col) = (o / NR, o % NR);
            for (i, &q) in q[o * k..(o + 1) * k].iter().enumerate() {
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
            #[cfg(target_arch = "x86_64")]
            wide: OnceLock::new(),
        }
    }

    /// The weights as i16 for the AVX2 kernel: per half panel of 16 outputs, per pair of
    /// inputs, per output, its two weights (one `vpmaddwd` operand per 8 outputs).
    #[cfg(target_arch = "x86_64")]
    fn wide(&self) -> &[i16] {
        self.wide.get_or_init(|| {
            let kp = self.kp;
            let mut wide = vec![0i16; self.packed.len()];
            for (at, &q) in self.packed.iter().enumerate() {
                let (panel, rest) = (at / (NR * kp), at % (NR * kp));
                let (group, col, j) = (rest / (NR * 4), rest % (NR * 4) / 4, rest % 4);
                let (half, c) = (panel * 2 + col / 16, col % 16);
                wide[(half * kp / 2 + group * 2 + j / 2) * 32 + c * 2 + j % 2] = i16::from(q);
            }
            wide
        })
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
    // A refused `$MINDEX_INT8_KERNEL` already failed the model's load; here it cannot happen.
    product(
        int8_kernel().unwrap_or_else(|_| best_kernel()),
        a,
        w,
        bias,
        y,
    );
}

/// The product on one kernel, which this CPU must run (checked).
fn product(kernel: Kernel, a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    assert!(kernel.available(), "this CPU cannot run {kernel:?}");
    debug_assert!(a.kp == w.kp && y.len() >= a.rows * w.n && bias.len() == w.n);
    // SAFETY (every arm): the CPU has the kernel's features (asserted above); every pointer a
    // kernel reads or writes stays inside `a.data`, `a.scale`, the packed weights, `w.start`,
    // `w.scale`, `bias` and `y`, whose sizes `matmul_i8` asserts and the packing fixes.
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Vnni => unsafe { vnni::product(a, w, bias, y) },
        #[cfg(target_arch = "x86_64")]
        Kernel::AvxVnni => unsafe { ymm::avxvnni(a, w, bias, y) },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => unsafe { ymm::avx2(a, w, bias, y) },
        #[cfg(target_arch = "aarch64")]
        Kernel::Dotprod => unsafe { neon::dotprod(a, w, bias, y) },
        _ => portable_product(a, w, bias, y),
    }
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
mod vnni;

#[cfg(target_arch = "x86_64")]
mod ymm;

#[cfg(target_arch = "aarch64")]
mod neon;

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

    /// Activations given as bytes (rows padded with the zero point), every block's scale 1.
    fn raw_rows(u: &[u8], m: usize, k: usize) -> QRows {
        let kp = k.div_ceil(KB) * KB;
        let mut data = vec![128u8; m * kp];
        for r in 0..m {
            data[r * kp..r * kp + k].copy_from_slice(&u[r * k..(r + 1) * k]);
        }
        QRows {
            data,
            scale: vec![1.0; m * kp / KB],
            kp,
            rows: m,
        }
    }

    /// Runs every vector kernel this CPU has against the portable loop: the same f32 outputs,
    /// bit for bit. Returns the kernels checked.
    fn same_as_portable(a: &QRows, w: &QMatrix, bias: &[f32], what: &str) -> Vec<Kernel> {
        let (m, n) = (a.rows, w.n);
        let mut want = vec![f32::NAN; m * n];
        product(Kernel::Portable, a, w, bias, &mut want);
        let mut checked = Vec::new();
        for kernel in KERNELS {
            if kernel == Kernel::Portable || !kernel.available() {
                continue;
            }
            let mut got = vec![f32::NAN; m * n];
            product(kernel, a, w, bias, &mut got);
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            if bits(&got) != bits(&want) {
                let at = (0..m * n).find(|&i| got[i].to_bits() != want[i].to_bits());
                let at = at.unwrap_or(0);
                panic!(
                    "{kernel:?} differs from the portable loop on {what} ({m}×{n}×{}): \
                     output {at} (row {}, col {}) is {} instead of {}",
                    w.k,
                    at / n,
                    at % n,
                    got[at],
                    want[at]
                );
            }
            checked.push(kernel);
        }
        checked
    }

    /// Every kernel this CPU runs gives the portable loop's integers: raw bytes over the whole
    /// u8 × i8 range (0/255 and −128/127 included; unit scales, so each output is the exact
    /// integer sum, checked against i64 arithmetic too) and quantised random floats, in shapes
    /// that cut micro-tiles, panels, half panels, 64-input blocks and 60-row blocks.
    #[test]
    fn every_kernel_gives_the_portable_integers() {
        let mut s = 11u64;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u32
        };
        let shapes = [
            (1, 1, 1),
            (2, 3, 5),
            (4, 17, 63),
            (5, 33, 65),
            (7, 48, 130),
            (3, 100, 200),
            (61, 40, 64),
            (67, 97, 300),
            (6, 16, 4),
        ];
        let mut checked = Vec::new();
        for &(m, n, k) in &shapes {
            for fill in 0..5 {
                let (u, q): (Vec<u8>, Vec<i8>) = match fill {
                    // Anything.
                    0 => (
                        (0..m * k).map(|_| next() as u8).collect(),
                        (0..n * k).map(|_| next() as i8).collect(),
                    ),
                    // Only the extremes, mixed.
                    1 => (
                        (0..m * k).map(|_| [0, 255][next() as usize % 2]).collect(),
                        (0..n * k)
                            .map(|_| [-128, 127][next() as usize % 2])
                            .collect(),
                    ),
                    // The largest sums either way: 255 × 127, 255 × −128, 0 × −128.
                    2 => (vec![255; m * k], vec![127; n * k]),
                    3 => (vec![255; m * k], vec![-128; n * k]),
                    _ => (vec![0; m * k], vec![-128; n * k]),
                };
                let w = QMatrix::pack(&q, vec![1.0; n], n, k);
                let a = raw_rows(&u, m, k);
                let bias = vec![0.0; n];
                let what = format!("bytes (fill {fill})");
                checked = same_as_portable(&a, &w, &bias, &what);
                let mut y = vec![0f32; m * n];
                product(Kernel::Portable, &a, &w, &bias, &mut y);
                for r in 0..m {
                    for o in 0..n {
                        let exact: i64 = (0..k)
                            .map(|i| (i64::from(u[r * k + i]) - 128) * i64::from(q[o * k + i]))
                            .sum();
                        assert_eq!(y[r * n + o], exact as f32, "{what} at {r}, {o}");
                    }
                }
            }
            // Quantised floats with their real scales and a bias.
            let x: Vec<f32> = (0..m * k).map(|_| next() as f32 / 2e9 - 1.0).collect();
            let wf: Vec<f32> = (0..n * k).map(|_| next() as f32 / 2e10 - 0.1).collect();
            let bias: Vec<f32> = (0..n).map(|_| next() as f32 / 2e9 - 1.0).collect();
            let w = QMatrix::new(&wf, n, k);
            let mut a = QRows::default();
            a.quantize(&x, m, k);
            same_as_portable(&a, &w, &bias, "quantised floats");
        }
        eprintln!("int8 kernels checked against the portable loop: {checked:?}");
        // `MINDEX_TEST_KERNELS` (e.g. `dotprod` under qemu) names kernels that must have run.
        for name in std::env::var("MINDEX_TEST_KERNELS")
            .unwrap_or_default()
            .split(',')
        {
            let name = name.trim();
            assert!(
                name.is_empty() || checked.iter().any(|k| k.name() == name),
                "kernel {name} was not checked: this CPU runs {checked:?}"
            );
        }
    }

    #[test]
    fn a_forced_kernel_is_checked() {
        assert_eq!(choose_kernel(None), Ok(best_kernel()));
        assert_eq!(choose_kernel(Some(" ")), Ok(best_kernel()));
        assert_eq!(choose_kernel(Some("Portable")), Ok(Kernel::Portable));
        let e = choose_kernel(Some("sse")).unwrap_err();
        assert!(e.contains("unknown int8 kernel \"sse\""), "{e}");
        for k in KERNELS {
            let got = choose_kernel(Some(k.name()));
            if k.available() {
                assert_eq!(got, Ok(k));
            } else {
                let e = got.unwrap_err();
                assert!(e.contains("cannot run the") && e.contains(k.needs()), "{e}");
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
