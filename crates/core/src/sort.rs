//! One small in-place heapsort for the few places that sort. The standard library's sorts are
//! faster on large inputs but add kilobytes of wasm for every element type they are used with;
//! ours are short lists (options, class ranges, array items, fields). O(n log n) in the worst
//! case, so hostile input cannot make it quadratic. Not stable: equal elements may be reordered.

/// Sorts `items` so that no element is `less` than one before it.
pub fn sort_by_less<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let is_less = |items: &[T], a: usize, b: usize| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => less(a, b),
        _ => false,
    };
    let len = items.len();
    // Build a max-heap, then move its root to the end of the shrinking unsorted prefix.
    for node in (0..len / 2).rev() {
        sift_down(items, node, len, &is_less);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end, &is_less);
    }
}

/// The first value, in sorted order, that `items` holds twice; sorts `items` to find it (a repeat
/// then sits next to its twin, with no hash table).
pub fn first_repeat<'a>(items: &mut [&'a str]) -> Option<&'a str> {
    sort_by_less(items, |a, b| a < b);
    items
        .windows(2)
        .find(|pair| pair.first() == pair.get(1))
        .and_then(|pair| pair.first().copied())
}

/// Moves `items[node]` down the heap held in `items[..end]` until neither child is greater.
fn sift_down<T>(
    items: &mut [T],
    mut node: usize,
    end: usize,
    is_less: &impl Fn(&[T], usize, usize) -> bool,
) {
    loop {
        let mut child = 2 * node + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && is_less(items, child, child + 1) {
            child += 1;
        }
        if !is_less(items, node, child) {
            return;
        }
        items.swap(node, child);
        node = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_library() {
        // A small deterministic generator: every length up to 40, many value spreads.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 0..=40 {
            for spread in [1, 2, 3, 10, 1000, u64::MAX] {
                let mut ours: Vec<u64> = (0..len).map(|_| next() % spread.max(1)).collect();
                let mut theirs = ours.clone();
                sort_by_less(&mut ours, |a, b| a < b);
                theirs.sort_unstable();
                assert_eq!(ours, theirs, "len {len} spread {spread}");
            }
        }
        assert_eq!(first_repeat(&mut ["b", "a", "c", "b", "a"]), Some("a"));
        assert_eq!(first_repeat(&mut ["b", "a", "c"]), None);
        assert_eq!(first_repeat(&mut []), None);
        let mut words = vec!["pear", "apple", "fig", "apple", ""];
        sort_by_less(&mut words, |a, b| a < b);
        assert_eq!(words, ["", "apple", "apple", "fig", "pear"]);
    }
}
