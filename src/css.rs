//! Compile-time CSS minification: the stylesheet is written readably in `dom/style.rs`, and the
//! wasm carries it without comments or needless whitespace (~1.3 KB raw less). Only what cannot
//! change the meaning is removed: comments, whitespace at either end, around `{`, `}`, `;` and `,`
//! and after `:`, and a rule's last `;`; any other run of whitespace becomes one space (a space
//! before `:` stays: `.a :hover` is not `.a:hover`). The sheet has no strings or `url()`s with
//! whitespace or those characters in them.

// Runs at compile time only (const fns, where `get` is not available): an index out of range
// fails the build, not the page.
#![allow(clippy::indexing_slicing)]

/// The minified `css` in the first `.1` bytes of `.0`; `N` is at least `css.len()`.
pub const fn minify<const N: usize>(css: &[u8]) -> ([u8; N], usize) {
    let mut out = [0u8; N];
    let mut len = 0;
    let mut i = 0;
    let mut space = false;
    while i < css.len() {
        let byte = css[i];
        if byte == b'/' && i + 1 < css.len() && css[i + 1] == b'*' {
            i += 2;
            while i + 1 < css.len() && !(css[i] == b'*' && css[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            continue;
        }
        if matches!(byte, b' ' | b'\n' | b'\t' | b'\r') {
            space = true;
            i += 1;
            continue;
        }
        if space && len > 0 && !is_tight(out[len - 1]) && !is_tight(byte) && out[len - 1] != b':' {
            out[len] = b' ';
            len += 1;
        }
        if byte == b'}' && len > 0 && out[len - 1] == b';' {
            len -= 1;
        }
        space = false;
        out[len] = byte;
        len += 1;
        i += 1;
    }
    (out, len)
}

/// The first `M` bytes of `bytes`.
pub const fn prefix<const M: usize, const N: usize>(bytes: &[u8; N]) -> [u8; M] {
    let mut out = [0u8; M];
    let mut i = 0;
    while i < M {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// A byte that needs no whitespace on either side.
const fn is_tight(byte: u8) -> bool {
    matches!(byte, b'{' | b'}' | b';' | b',')
}

/// `minify` as a `&'static str` constant: `minified_css!(SOURCE)`.
#[macro_export]
macro_rules! minified_css {
    ($source:expr) => {{
        const SOURCE: &[u8] = $source.as_bytes();
        const PASS: ([u8; SOURCE.len()], usize) = $crate::css::minify::<{ SOURCE.len() }>(SOURCE);
        const BYTES: [u8; PASS.1] = $crate::css::prefix::<{ PASS.1 }, { SOURCE.len() }>(&PASS.0);
        match ::core::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("minified CSS is not UTF-8"),
        }
    }};
}

#[cfg(test)]
mod tests {
    const MINIFIED: &str = minified_css!(
        "\n:host {\n  --font: system-ui, \"Segoe UI\";\n}\n/* a comment; { } */\n.a  .b > c:hover, .d :focus {\n  margin: 0 auto;  color: red;\n}\n@media (x: y) {\n  .é { content: \"\"; }\n}\n"
    );

    #[test]
    fn drops_comments_and_needless_whitespace_only() {
        assert_eq!(
            MINIFIED,
            ":host{--font:system-ui,\"Segoe UI\"}.a .b > c:hover,.d :focus{margin:0 auto;color:red}@media (x:y){.é{content:\"\"}}"
        );
    }
}
