//! CPU references of the low-precision matmuls: the `f64` oracles, and the
//! `f32`-accumulating baselines (one rounding per output), both through the
//! `gemm` crate on the exact input values.

use half::bf16;
use half::slice::HalfFloatSliceExt as _;

use dual_delta_runtime::E4m3;

use crate::matmul::MatmulInput;
use crate::matmul::gemm_row_major;

/// The oracle of the `bf16` matmul: `C = A · B` in `f64` on the exact input
/// values (every product is exact; each sum carries only `f64` rounding).
pub fn matmul_f64_bf16(x: &MatmulInput<bf16>) -> Vec<f64> {
    let widen = |v: &[bf16]| {
        let mut out = vec![0f64; v.len()];
        v.convert_to_f64_slice(&mut out);
        out
    };
    gemm_row_major(x.shape(), &widen(x.a()), &widen(x.b()))
}

/// The baseline of the `bf16` matmul, as a careful CPU library computes it
/// (PyTorch's CPU `bf16` matmul accumulates in `f32`): the inputs widened
/// to `f32`, the products accumulated in `f32` (in the GEMM kernel's
/// order), each result rounded once to `bf16`.
pub fn matmul_cpu_bf16(x: &MatmulInput<bf16>) -> Vec<bf16> {
    let widen = |v: &[bf16]| {
        let mut out = vec![0f32; v.len()];
        v.convert_to_f32_slice(&mut out);
        out
    };
    let c = gemm_row_major(x.shape(), &widen(x.a()), &widen(x.b()));
    let mut out = vec![bf16::ZERO; c.len()];
    out.convert_from_f32_slice(&c);
    out
}

/// The oracle of the FP8 matmul: the exact products of the decoded E4M3
/// values summed in `f64`, times `scale_a · scale_b` (exact in `f64`):
/// what the scaled inputs stand for, multiplied with `f64` rounding only.
pub fn matmul_f64_fp8(x: &MatmulInput<E4m3>) -> Vec<f64> {
    let widen = |v: &[dual_delta_runtime::E4m3]| v.iter().map(|e| e.to_f64()).collect::<Vec<_>>();
    let scale = f64::from(x.scale_a()) * f64::from(x.scale_b());
    let mut c = gemm_row_major(x.shape(), &widen(x.a()), &widen(x.b()));
    for v in &mut c {
        *v *= scale;
    }
    c
}

/// The baseline of the FP8 matmul: the decoded values (exact in `f32`)
/// multiplied and accumulated in `f32` (in the GEMM kernel's order), then
/// multiplied by [`output_scale`](MatmulInput::output_scale), as every
/// strategy of the kernel does: one rounding of the sum, one of the scaling.
pub fn matmul_cpu_fp8(x: &MatmulInput<E4m3>) -> Vec<f32> {
    let widen = |v: &[dual_delta_runtime::E4m3]| v.iter().map(|e| e.to_f32()).collect::<Vec<_>>();
    let scale = x.output_scale();
    let mut c = gemm_row_major(x.shape(), &widen(x.a()), &widen(x.b()));
    for v in &mut c {
        *v *= scale;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use dual_delta_runtime::TrialRng;

    #[test]
    fn references_agree_with_a_naive_product() {
        let x = MatmulInput::<E4m3>::random(5, 70, 3, &mut TrialRng::for_trial(2, 0));
        let (m, k, n) = x.shape();
        let scale = f64::from(x.scale_a()) * f64::from(x.scale_b());
        let (oracle, cpu) = (matmul_f64_fp8(&x), matmul_cpu_fp8(&x));
        for i in 0..m {
            for j in 0..n {
                let terms = (0..k).map(|p| x.a()[i * k + p].to_f64() * x.b()[p * n + j].to_f64());
                let exact: f64 = terms.clone().sum::<f64>() * scale;
                let magnitude: f64 = terms.map(f64::abs).sum::<f64>() * scale;
                assert!((oracle[i * n + j] - exact).abs() <= 1e-13 * magnitude);
                // f32: k roundings of the sum, one of the scale and one of
                // the scaling, each at most 2^-24 of the magnitude.
                let bound = (k as f64 + 2.0) * 2f64.powi(-24) * magnitude;
                assert!((f64::from(cpu[i * n + j]) - exact).abs() <= bound);
            }
        }
        let b = MatmulInput::new(
            1,
            2,
            2,
            vec![bf16::from_f32(3.0), bf16::from_f32(-0.5)],
            [1.0, 2.0, 4.0, 8.0].map(bf16::from_f32).to_vec(),
        )
        .unwrap();
        assert_eq!(matmul_f64_bf16(&b), vec![1.0, 2.0]);
        assert_eq!(matmul_cpu_bf16(&b), vec![bf16::ONE, bf16::from_f32(2.0)]);
        let one = vec![E4m3::ONE];
        let f = MatmulInput::scaled((1, 1, 1), one.clone(), one, 0.5, 0.25).unwrap();
        assert_eq!(
            (matmul_f64_fp8(&f), matmul_cpu_fp8(&f)),
            (vec![0.125], vec![0.125])
        );
    }
}
