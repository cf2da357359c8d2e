//! Run-time CPU dispatch for the numeric loops (encoder kernels, vector dot products).

/// Defines `fn $name` twice: compiled for AVX2 + FMA (chosen at run time when the CPU has them)
/// and for the baseline target, so plain loops vectorise 8 lanes wide without unsafe code in them.
macro_rules! multiversion {
    ($(#[$m:meta])* fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $(#[$m])*
        pub(crate) fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn wide($($arg: $ty),*) -> $ret $body
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    // SAFETY: the CPU has AVX2 and FMA (checked on the line above).
                    return unsafe { wide($($arg),*) };
                }
            }
            $body
        }
    };
}

pub(crate) use multiversion;
