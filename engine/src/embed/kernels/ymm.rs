//! The 256-bit kernels: AVX2 (no VNNI) and AVX-VNNI. Micro-tiles of a few rows × half a panel
//! (16 outputs: two 8-lane vectors), the same blocking and the same sums as the VNNI kernel.

use super::{KB, MB, NR, QMatrix, QRows};
use std::arch::x86_64::*;
use std::cell::RefCell;

/// Rows of an AVX2 micro-tile. The inner loop holds 2·MR i32 accumulators, two weight
/// vectors and a broadcast in the 16 registers (the f32 sums wait outside it); measured
/// here, 4 rows beat 3, 5 and 6 (60 GMAC/s per core: one `vpmaddwd` and one `vpaddd` per
/// 16 products, about all three vector ports give).
const MR_AVX2: usize = 4;
/// Rows of an AVX-VNNI micro-tile (6 measured best: 150 GMAC/s against 135 with 3 or 4).
const MR_VNNI: usize = 6;
/// Outputs of a micro-tile.
const HR: usize = NR / 2;

thread_local! {
    /// One block of rows of activations widened to i16, reused across products.
    static WIDE: RefCell<Vec<i16>> = const { RefCell::new(Vec::new()) };
}

/// Runs `tile::<R>` over every micro-tile of rows `r0..r_end`, half panel by half panel.
macro_rules! tiles {
    ($tile:ident, $mr:expr, $r0:expr, $r_end:expr, $n:expr, ($($arg:expr),*)) => {
        for hp in 0..$n.div_ceil(HR) {
            let mut r = $r0;
            while r < $r_end {
                let rows = ($r_end - r).min($mr);
                match rows {
                    6 => $tile::<6>($($arg,)* r, hp),
                    5 => $tile::<5>($($arg,)* r, hp),
                    4 => $tile::<4>($($arg,)* r, hp),
                    3 => $tile::<3>($($arg,)* r, hp),
                    2 => $tile::<2>($($arg,)* r, hp),
                    _ => $tile::<1>($($arg,)* r, hp),
                }
                r += rows;
            }
        }
    };
}

/// AVX2: activations (u8) and weights (i8) widened to i16, `vpmaddwd` sums two products
/// into each i32 lane exactly (at most 2 × 255 × 128), `vpaddd` accumulates. (`vpmaddubsw`
/// would take the bytes as they are but saturates its i16 pair sums: 255·127 + 255·127 does
/// not fit, and the activations do reach 255.)
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn avx2(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    let wide = w.wide();
    let kp = a.kp;
    let mut buf = WIDE.take();
    let mut r0 = 0;
    while r0 < a.rows {
        let r_end = (r0 + MB).min(a.rows);
        buf.clear();
        buf.extend(a.data[r0 * kp..r_end * kp].iter().map(|&u| i16::from(u)));
        // SAFETY: the caller checked AVX2 and FMA; rows r0..r_end of `buf` hold rows
        // r0..r_end of `a`; half panels stay inside `wide` (see `tile_avx2`).
        unsafe {
            tiles!(
                tile_avx2,
                MR_AVX2,
                r0,
                r_end,
                w.n,
                (a, &buf, r0, w, wide, bias, y)
            )
        };
        r0 = r_end;
    }
    WIDE.set(buf);
}

/// AVX-VNNI: `vpdpbusd` on 256-bit registers, reading the VNNI packing directly.
#[target_feature(enable = "avx2,fma,avxvnni")]
pub(super) unsafe fn avxvnni(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    let mut r0 = 0;
    while r0 < a.rows {
        let r_end = (r0 + MB).min(a.rows);
        // SAFETY: the caller checked the features; tiles stay inside `a` and `w`.
        unsafe { tiles!(tile_avxvnni, MR_VNNI, r0, r_end, w.n, (a, w, bias, y)) };
        r0 = r_end;
    }
}

/// `R` rows from row `r` (row `r - r0` of `aw`, the widened block) × half panel `hp`.
#[target_feature(enable = "avx2,fma")]
#[allow(
    clippy::too_many_arguments,
    reason = "a micro-tile names its operands and its place"
)]
unsafe fn tile_avx2<const R: usize>(
    a: &QRows,
    aw: &[i16],
    r0: usize,
    w: &QMatrix,
    wide: &[i16],
    bias: &[f32],
    y: &mut [f32],
    r: usize,
    hp: usize,
) {
    let kp = w.kp;
    let blocks = kp / KB;
    debug_assert!(aw.len() >= (r - r0 + R) * kp && wide.len() >= (hp + 1) * HR * kp);
    // SAFETY: rows r..r+R are inside `aw` (asserted in debug; the caller's bounds) and `a`;
    // half panel hp holds HR·kp weights inside `wide`, HR starts per block inside
    // `w.start`; loads of 4 bytes at pair t stay below kp.
    unsafe {
        let mut sum = [[_mm256_setzero_ps(); 2]; R];
        let wp = wide.as_ptr().add(hp * HR * kp);
        let ap = aw.as_ptr().add((r - r0) * kp);
        for b in 0..blocks {
            let mut acc = start::<R>(w, hp, b);
            for t in b * KB / 2..(b + 1) * KB / 2 {
                let w0 = _mm256_loadu_si256(wp.add(t * 2 * HR).cast());
                let w1 = _mm256_loadu_si256(wp.add(t * 2 * HR + 16).cast());
                for (i, row) in acc.iter_mut().enumerate() {
                    let v =
                        _mm256_set1_epi32(ap.add(i * kp + t * 2).cast::<i32>().read_unaligned());
                    row[0] = _mm256_add_epi32(row[0], _mm256_madd_epi16(v, w0));
                    row[1] = _mm256_add_epi32(row[1], _mm256_madd_epi16(v, w1));
                }
            }
            fold(&mut sum, &acc, a, r, b);
        }
        store(&sum, w, bias, y, r, hp);
    }
}

/// `R` rows from row `r` × half panel `hp`, on `vpdpbusd`.
#[target_feature(enable = "avx2,fma,avxvnni")]
unsafe fn tile_avxvnni<const R: usize>(
    a: &QRows,
    w: &QMatrix,
    bias: &[f32],
    y: &mut [f32],
    r: usize,
    hp: usize,
) {
    let kp = w.kp;
    let blocks = kp / KB;
    // SAFETY: rows r..r+R of `a` (kp bytes each) and half hp % 2 of panel hp / 2 of
    // `w.packed` (64 of each group's NR·4 bytes) are inside their buffers.
    unsafe {
        let mut sum = [[_mm256_setzero_ps(); 2]; R];
        let wp = w.packed.as_ptr().add(hp / 2 * NR * kp + hp % 2 * HR * 4);
        let ap = a.data.as_ptr().add(r * kp);
        for b in 0..blocks {
            let mut acc = start::<R>(w, hp, b);
            for g in b * KB / 4..(b + 1) * KB / 4 {
                let w0 = _mm256_loadu_si256(wp.add(g * NR * 4).cast());
                let w1 = _mm256_loadu_si256(wp.add(g * NR * 4 + 32).cast());
                for (i, row) in acc.iter_mut().enumerate() {
                    let v =
                        _mm256_set1_epi32(ap.add(i * kp + g * 4).cast::<i32>().read_unaligned());
                    row[0] = _mm256_dpbusd_avx_epi32(row[0], v, w0);
                    row[1] = _mm256_dpbusd_avx_epi32(row[1], v, w1);
                }
            }
            fold(&mut sum, &acc, a, r, b);
        }
        store(&sum, w, bias, y, r, hp);
    }
}

/// Accumulators of `R` rows for block `b` of half panel `hp`, at the block's offset term.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn start<const R: usize>(w: &QMatrix, hp: usize, b: usize) -> [[__m256i; 2]; R] {
    let blocks = w.kp / KB;
    // SAFETY: panel hp / 2 has `blocks` × NR starts; this half's 16 are inside them.
    unsafe {
        let st = w
            .start
            .as_ptr()
            .add((hp / 2 * blocks + b) * NR + hp % 2 * HR);
        let s0 = _mm256_loadu_si256(st.cast());
        let s1 = _mm256_loadu_si256(st.add(8).cast());
        [[s0, s1]; R]
    }
}

/// Adds block `b`'s integer sums to the f32 sums at each row's scale for the block.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn fold<const R: usize>(
    sum: &mut [[__m256; 2]; R],
    acc: &[[__m256i; 2]; R],
    a: &QRows,
    r: usize,
    b: usize,
) {
    let blocks = a.kp / KB;
    for i in 0..R {
        let sa = _mm256_set1_ps(a.scale[(r + i) * blocks + b]);
        for h in 0..2 {
            sum[i][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[i][h]), sa, sum[i][h]);
        }
    }
}

/// `y = sum · scale_out + bias` for `R` rows × half panel `hp`, masked at the matrix's edge.
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn store<const R: usize>(
    sum: &[[__m256; 2]; R],
    w: &QMatrix,
    bias: &[f32],
    y: &mut [f32],
    r: usize,
    hp: usize,
) {
    let n = w.n;
    let c0 = hp * HR;
    let cols = (n - c0).min(HR);
    for (h, c) in [c0, c0 + 8].into_iter().enumerate() {
        let width = cols.saturating_sub(h * 8).min(8);
        if width == 0 {
            continue;
        }
        let mask = _mm256_cmpgt_epi32(
            _mm256_set1_epi32(width as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        );
        // SAFETY: the mask keeps loads and stores to outputs c..c+width < n, inside
        // `w.scale`, `bias` and rows r..r+R of `y`.
        unsafe {
            let scale = _mm256_maskload_ps(w.scale.as_ptr().add(c), mask);
            let b = _mm256_maskload_ps(bias.as_ptr().add(c), mask);
            for (i, row) in sum.iter().enumerate() {
                let out = y.as_mut_ptr().add((r + i) * n + c);
                _mm256_maskstore_ps(out, mask, _mm256_fmadd_ps(row[h], scale, b));
            }
        }
    }
}
