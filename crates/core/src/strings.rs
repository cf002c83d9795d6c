//! String routines that cost the wasm less than std's. Substring search without
//! `core::str::pattern`'s two-way searcher, which costs a few kilobytes for the handful of short
//! searches the surfaces make (secret markers in a label, `{id}` in a URL template, `::` in an
//! IPv6 literal); it is quadratic only in the needle's length, always a short constant here.
//! And a plain char count in place of std's unrolled one, and a join for `[String]`.

/// How many chars (Unicode scalar values) `text` holds, like `text.chars().count()`: every
/// byte that is not a UTF-8 continuation byte starts one.
pub fn char_count(text: &str) -> usize {
    text.bytes().filter(|byte| byte & 0xC0 != 0x80).count()
}

/// The byte offset of the first occurrence of `needle` in `haystack` (0 for an empty needle),
/// like `str::find`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
}

/// `parts` joined with `separator`, like `[String]::join` / `[&str]::join`, whose generic copy
/// loop costs the wasm a kilobyte.
pub fn join<S: AsRef<str>>(parts: &[S], separator: &str) -> String {
    let mut joined = String::new();
    for (index, part) in parts.iter().enumerate() {
        if index > 0 {
            joined.push_str(separator);
        }
        joined.push_str(part.as_ref());
    }
    joined
}

/// Whether `needle` occurs in `haystack`, like `str::contains`.
pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// `haystack` with every non-overlapping occurrence of a non-empty `needle`, left to right,
/// replaced by `with`, like `str::replace`.
pub fn replace(haystack: &str, needle: &str, with: &str) -> String {
    let mut out = String::with_capacity(haystack.len());
    let mut rest = haystack;
    while let Some(at) = find(rest, needle).filter(|_| !needle.is_empty()) {
        // `at` and `at + needle.len()` are char boundaries: a UTF-8 match starts and ends on one.
        let (Some(before), Some(after)) = (rest.get(..at), rest.get(at + needle.len()..)) else {
            break;
        };
        out.push_str(before);
        out.push_str(with);
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_std() {
        let haystacks = [
            "",
            "a",
            "aaa",
            "abcabc",
            "x{id}y{id}",
            "{id}",
            "ééaé",
            "a::b::c",
            "::",
        ];
        let needles = ["a", "aa", "abc", "{id}", "é", "::", ":", "zz"];
        for haystack in haystacks {
            for needle in needles {
                assert_eq!(
                    find(haystack, needle),
                    haystack.find(needle),
                    "{haystack} {needle}"
                );
                assert_eq!(contains(haystack, needle), haystack.contains(needle));
                assert_eq!(
                    replace(haystack, needle, "<>"),
                    haystack.replace(needle, "<>"),
                    "{haystack} {needle}"
                );
            }
            assert_eq!(find(haystack, ""), Some(0));
            assert_eq!(char_count(haystack), haystack.chars().count());
            let parts: Vec<String> = haystack.split('a').map(String::from).collect();
            assert_eq!(join(&parts, ", "), parts.join(", "));
            let borrowed: Vec<&str> = haystack.split('a').collect();
            assert_eq!(join(&borrowed, " | "), borrowed.join(" | "));
        }
    }
}
