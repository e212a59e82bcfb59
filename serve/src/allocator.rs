//! The global allocator of the servers' binaries.
//!
//! A flood of connections each holding an unfinished request head takes tens of MiB; once they
//! close, that memory should go back to the system while the server goes on serving. glibc's
//! malloc returns only the top of each heap, and mimalloc returns a thread's freed pages only
//! when that thread allocates again, so an idle serving thread kept them. jemalloc's background
//! thread purges unused pages on a clock, whichever thread freed them.

#[cfg(not(target_env = "msvc"))]
#[doc(hidden)]
pub use tikv_jemallocator as jemalloc;

/// Sets the binary's global allocator to jemalloc, whose background thread purges pages left
/// unused for a second (`dirty_decay_ms`; jemalloc's default is 10 s): freed memory returns to
/// the system on a clock, not as a side effect of later allocations on the thread that owns it.
/// `MALLOC_CONF` in the environment still overrides these options. Use it once, in the
/// binary's `main.rs` (a library must not choose its users' allocator). On Windows (MSVC),
/// where jemalloc does not build, it does nothing.
#[macro_export]
macro_rules! global_allocator {
    () => {
        #[cfg(not(target_env = "msvc"))]
        #[global_allocator]
        static ALLOCATOR: $crate::jemalloc::Jemalloc = $crate::jemalloc::Jemalloc;

        /// jemalloc's options, read when it starts (before `main`) from its `malloc_conf`
        /// symbol, a C string.
        #[cfg(not(target_env = "msvc"))]
        #[export_name = "_rjem_malloc_conf"]
        static MALLOC_CONF: &u8 = &b"background_thread:true,dirty_decay_ms:1000\0"[0];
    };
}
