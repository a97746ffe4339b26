//! The inputs of case study 4 (FP8 and `bf16` accumulation), shared by the
//! annotated tests in `tests/fp8_case_study.rs` and the `fp8` example.

use dual_delta_gpu::{bf16, matmul::MatmulInput};
use dual_delta_runtime::E4m3;
use dual_delta_runtime::TrialRng;

/// `128×4096 @ 4096×128`, `torch.randn` quantized to E4M3 with per-tensor
/// scales.
pub fn fp8_input(rng: &mut TrialRng) -> MatmulInput<E4m3> {
    MatmulInput::<E4m3>::random(128, 4096, 128, rng)
}

/// An `f32` GEMM output rounded once to `bf16`, as DeepSeek-V3's GEMMs
/// write it.
pub fn to_bf16(c: Vec<f32>) -> Vec<bf16> {
    c.into_iter().map(bf16::from_f32).collect()
}

/// `32×4096 @ 4096×32` in `bf16`: a long K.
pub fn bf16_long_k(rng: &mut TrialRng) -> MatmulInput<bf16> {
    MatmulInput::<bf16>::random(32, 4096, 32, rng)
}

/// Row sums as a matmul: `A` (`16 × 4096`, randn in `bf16`) times a
/// column of ones, so every output is the sum of one row.
pub fn bf16_row_sums(rng: &mut TrialRng) -> MatmulInput<bf16> {
    let rows = MatmulInput::<bf16>::random(16, 4096, 1, rng);
    MatmulInput::new(16, 4096, 1, rows.a().to_vec(), vec![bf16::ONE; 4096]).expect("a valid shape")
}
