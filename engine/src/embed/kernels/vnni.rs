//! AVX-512 VNNI: `vpdpbusd` on 512-bit registers (u8 × i8, four products into each i32 lane),
//! the packing read as is: micro-tiles of `MR` rows × a panel of `NR` outputs.

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
                    let v =
                        _mm512_set1_epi32(ap.add(i * kp + g * 4).cast::<i32>().read_unaligned());
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
