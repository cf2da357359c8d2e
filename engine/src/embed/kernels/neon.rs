//! Arm's dot product: `sdot` (i8 × i8, four products into each i32 lane). Activations are u8
//! with a +128 offset, so the kernel flips their top bit (u8 − 128 as i8) and sums
//! (u8 − 128) × w from zero: exactly `start` + Σ u8 × w, since `start` = −128 Σ w. (`usdot`
//! takes u8 × i8 as they are but needs the i8mm extension, which Apple M1 and Graviton 2 lack;
//! `sdot` needs only the dot product, and the flip costs one `eor` per 16 activations.)
//! Micro-tiles of `MR` rows × half a panel (16 outputs: four 4-lane vectors), the VNNI packing
//! read as is.

use super::{KB, NR, QMatrix, QRows};
use std::arch::aarch64::*;
use std::arch::asm;

/// Rows of a micro-tile: 4·MR i32 accumulators, 4·MR f32 sums, four weight vectors and
/// MR activation vectors fill the 32 registers.
const MR: usize = 3;
/// Outputs of a micro-tile.
const HR: usize = NR / 2;
/// Rows of activations kept hot while the weight panels stream past them.
const MB: usize = 60;

/// Blocks of `MB` rows; inside a block every half panel; inside it, micro-tiles of `MR` rows.
#[target_feature(enable = "neon,dotprod")]
pub(super) unsafe fn dotprod(a: &QRows, w: &QMatrix, bias: &[f32], y: &mut [f32]) {
    let mut r0 = 0;
    while r0 < a.rows {
        let r_end = (r0 + MB).min(a.rows);
        for hp in 0..w.n.div_ceil(HR) {
            let mut r = r0;
            while r < r_end {
                let rows = (r_end - r).min(MR);
                // SAFETY: the caller checked dotprod; rows r..r+rows are inside `a` and
                // `y`, half panel hp inside the packed weights.
                unsafe {
                    match rows {
                        3 => tile::<3>(a, w, bias, y, r, hp),
                        2 => tile::<2>(a, w, bias, y, r, hp),
                        _ => tile::<1>(a, w, bias, y, r, hp),
                    }
                }
                r += rows;
            }
        }
        r0 = r_end;
    }
}

/// `acc += Σ_j w[4·i + j] × a[4·L + j]` for each lane i: `sdot` by element. (Its intrinsic,
/// `vdotq_laneq_s32`, is not stable in Rust 1.95; the instruction in `asm!` is.)
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn sdot<const L: i32>(acc: int32x4_t, w: int8x16_t, a: int8x16_t) -> int32x4_t {
    let mut acc = acc;
    // SAFETY: a register-only instruction of the dotprod extension, which this function
    // requires.
    unsafe {
        asm!(
            "sdot {acc:v}.4s, {w:v}.16b, {a:v}.4b[{l}]",
            acc = inout(vreg) acc,
            w = in(vreg) w,
            a = in(vreg) a,
            l = const L,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    acc
}

/// One group of 4 inputs (lane `L` of each row's activation vector) × 16 outputs.
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn group<const L: i32, const R: usize>(
    acc: &mut [[int32x4_t; 4]; R],
    wv: &[int8x16_t; 4],
    av: &[int8x16_t; R],
) {
    for (row, &a) in acc.iter_mut().zip(av) {
        for (v, &w) in row.iter_mut().zip(wv) {
            *v = sdot::<L>(*v, w, a);
        }
    }
}

/// `R` rows from row `r` × half panel `hp`.
#[target_feature(enable = "neon,dotprod")]
unsafe fn tile<const R: usize>(
    a: &QRows,
    w: &QMatrix,
    bias: &[f32],
    y: &mut [f32],
    r: usize,
    hp: usize,
) {
    let (n, kp) = (w.n, w.kp);
    let blocks = kp / KB;
    let flip = vdupq_n_u8(0x80);
    let mut sum = [[vdupq_n_f32(0.0); 4]; R];
    // SAFETY: rows r..r+R of `a` (kp bytes each; 16-byte loads at multiples of 16 below
    // kp) and half hp % 2 of panel hp / 2 of `w.packed` (64 of each group's NR·4 bytes)
    // are inside their buffers.
    unsafe {
        let wp = w.packed.as_ptr().add(hp / 2 * NR * kp + hp % 2 * HR * 4);
        let ap = a.data.as_ptr().add(r * kp);
        for b in 0..blocks {
            let mut acc = [[vdupq_n_s32(0); 4]; R];
            for q in (b * KB..(b + 1) * KB).step_by(16) {
                let mut av = [vdupq_n_s8(0); R];
                for (i, v) in av.iter_mut().enumerate() {
                    *v = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(ap.add(i * kp + q)), flip));
                }
                let load = |g: usize| -> [int8x16_t; 4] {
                    let p = wp.add(g * NR * 4);
                    [
                        vld1q_s8(p),
                        vld1q_s8(p.add(16)),
                        vld1q_s8(p.add(32)),
                        vld1q_s8(p.add(48)),
                    ]
                };
                let g = q / 4;
                group::<0, R>(&mut acc, &load(g), &av);
                group::<1, R>(&mut acc, &load(g + 1), &av);
                group::<2, R>(&mut acc, &load(g + 2), &av);
                group::<3, R>(&mut acc, &load(g + 3), &av);
            }
            for (i, (s, row)) in sum.iter_mut().zip(&acc).enumerate() {
                let sa = vdupq_n_f32(a.scale[(r + i) * blocks + b]);
                for (s, &v) in s.iter_mut().zip(row) {
                    *s = vfmaq_f32(*s, vcvtq_f32_s32(v), sa);
                }
            }
        }
        // y = sum · scale_out + bias, 4 outputs at a time (lane by lane at the edge).
        let c0 = hp * HR;
        let cols = (n - c0).min(HR);
        for j in 0..4 {
            let c = c0 + j * 4;
            let width = cols.saturating_sub(j * 4).min(4);
            if width == 4 {
                let scale = vld1q_f32(w.scale.as_ptr().add(c));
                let bv = vld1q_f32(bias.as_ptr().add(c));
                for (i, row) in sum.iter().enumerate() {
                    vst1q_f32(
                        y.as_mut_ptr().add((r + i) * n + c),
                        vfmaq_f32(bv, row[j], scale),
                    );
                }
            } else if width > 0 {
                for (i, row) in sum.iter().enumerate() {
                    let mut f = [0f32; 4];
                    vst1q_f32(f.as_mut_ptr(), row[j]);
                    for l in 0..width {
                        y[(r + i) * n + c + l] = f[l].mul_add(w.scale[c + l], bias[c + l]);
                    }
                }
            }
        }
    }
}
