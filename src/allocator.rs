//! The wasm's heap allocator. Rust's default for wasm32 is dlmalloc, ≈ 3.4 KB of the gzipped wasm;
//! lol_alloc's free list (first fit, kept sorted by address, neighbours merged on free) is a few
//! hundred bytes. The element allocates little and briefly, so a list walk per call measured no
//! slower at open, per keystroke or over the 10,000-cycle soak (`bench/RESULTS.md`).

use lol_alloc::{AssumeSingleThreaded, FreeListAllocator};

#[global_allocator]
// SAFETY: wasm32-unknown-unknown without the atomics feature runs one thread only.
static ALLOCATOR: AssumeSingleThreaded<FreeListAllocator> =
    unsafe { AssumeSingleThreaded::new(FreeListAllocator::new()) };

#[cfg(test)]
mod tests {
    use crate::rng::Rng;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// Allocates, grows and frees blocks of mixed sizes and alignments, each filled with its own
    /// byte, and checks every surviving block's bytes. Returns with everything freed.
    fn churn(rng: &mut Rng, steps: usize) {
        let mut live: Vec<(u8, Vec<u8>)> = Vec::new();
        let mut aligned: Vec<Box<[u64; 9]>> = Vec::new();
        for step in 0..steps {
            let fill = (step % 251) as u8;
            match rng.below(10) {
                0..=3 => {
                    let size = match rng.below(20) {
                        0 => 1 + rng.below(200_000),
                        1..=4 => 1 + rng.below(8_000),
                        _ => 1 + rng.below(200),
                    };
                    live.push((fill, vec![fill; size]));
                }
                4 | 5 if !live.is_empty() => {
                    let (fill, block) = live.swap_remove(rng.below(live.len()));
                    assert!(
                        block.iter().all(|&byte| byte == fill),
                        "a block was overwritten"
                    );
                }
                6 | 7 if !live.is_empty() => {
                    let index = rng.below(live.len());
                    if let Some((fill, block)) = live.get_mut(index) {
                        let more = 1 + rng.below(3_000);
                        block.extend(std::iter::repeat_n(*fill, more));
                    }
                }
                8 => aligned.push(Box::new([step as u64; 9])),
                _ => {
                    if !aligned.is_empty() {
                        let block = aligned.swap_remove(rng.below(aligned.len()));
                        assert_eq!(block.as_ptr() as usize % 8, 0);
                        assert!(block.iter().all(|&word| word == block[0]));
                    }
                }
            }
        }
        for (fill, block) in &live {
            assert!(
                block.iter().all(|byte| byte == fill),
                "a block was overwritten"
            );
        }
    }

    #[wasm_bindgen_test]
    fn blocks_keep_their_bytes_and_freed_memory_is_reused() {
        const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
        churn(&mut Rng(SEED), 4_000);
        let mut pages = vec![core::arch::wasm32::memory_size(0)];
        for _ in 0..20 {
            churn(&mut Rng(SEED), 4_000);
            pages.push(core::arch::wasm32::memory_size(0));
        }
        // The same mix again and again must fit in what its first round grew: a free that lost
        // its block, or neighbours left unmerged, would grow the memory round after round.
        assert!(
            pages.windows(2).all(|pair| pair[0] == pair[1]),
            "memory (pages of 64 KiB) after each round: {pages:?}"
        );
    }
}
