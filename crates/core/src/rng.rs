//! A seeded random generator for the property tests and the fuzzer of both crates: SplitMix64,
//! tiny and deterministic (a failing seed replays), so no test needs a crate for it. Nothing on a
//! shipped path uses it.

/// SplitMix64 over its state; `Rng(seed)` starts it.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `items` (`None` when there are none).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        let index = self.below(items.len());
        items.get(index)
    }

    /// A size up to `max`, mostly small, sometimes large.
    pub fn size(&mut self, max: usize) -> usize {
        match self.below(10) {
            0..=5 => self.below(4.min(max + 1)),
            6..=8 => self.below(max.min(32) + 1),
            _ => self.below(max + 1),
        }
    }
}
