//! [`strategies!`], how every family but the `f16` matmul declares its
//! strategy enum.

/// Declares a kernel family's strategy enum: the variants, each with its
/// documentation and its name in reports (its `Display`), and `ALL`, every
/// variant in declaration order.
macro_rules! strategies {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident => $label:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                $(#[$variant_meta])*
                $variant,
            )+
        }

        impl $name {
            /// Every strategy, in declaration order.
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(match self {
                    $($name::$variant => $label,)+
                })
            }
        }
    };
}

/// Implements [`Kernel`](crate::Kernel) for the strategy of a family whose
/// kernels write one `f16` per output and whose batches go in one
/// submission: `plan` checks a batch and `launch` describes it, both given
/// the strategy's kernel (`$kernel(strategy)`); `|$x| $len` is the number
/// of outputs of input `$x`.
macro_rules! f16_kernel {
    ($strategy:ty, $input:ty, $kernel:path, $plan:path, $launch:path, |$x:ident| $len:expr) => {
        impl crate::launch::Kernel for $strategy {
            type Input = $input;
            type Output = half::f16;
            type Plan = ();

            fn plan(
                self,
                gpu: &crate::device::context::Gpu,
                inputs: &[&$input],
            ) -> Result<crate::launch::Batching<()>, crate::error::GpuError> {
                $plan(gpu, inputs, $kernel(self))
            }

            fn launch(
                self,
                gpu: &crate::device::context::Gpu,
                _: &(),
                group: &[&$input],
            ) -> crate::launch::Launch {
                $launch(gpu, group, $kernel(self))
            }

            fn output_len(self, $x: &$input) -> usize {
                $len
            }

            fn decode(gpu: &crate::device::context::Gpu, bytes: &[u8]) -> Vec<half::f16> {
                gpu.f16_outputs(bytes)
            }
        }
    };
}
