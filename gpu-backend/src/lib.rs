//! wgpu FP16 matmul. (being written)
