//! Which way text runs: a language's direction (from its script), and server strings kept from
//! reordering the text around them (their unpaired bidi controls closed at their end, isolated
//! with FSI … PDI where no element can isolate them; a surface that cannot isolate drops the
//! controls instead).

use std::borrow::Cow;

/// The direction a language is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Direction {
    /// Left to right.
    #[default]
    Ltr,
    /// Right to left.
    Rtl,
}

/// Languages written right to left when their tag names no script (`iw` is Hebrew's old code).
const RTL_LANGUAGES: [&str; 9] = ["ar", "he", "iw", "fa", "ur", "ps", "yi", "ckb", "dv"];
/// Script subtags written right to left (Arabic, Hebrew, Thaana, Syriac), lowercase.
const RTL_SCRIPTS: [&str; 4] = ["arab", "hebr", "thaa", "syrc"];

impl Direction {
    /// The value of an HTML `dir` attribute: `ltr` or `rtl`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Ltr => "ltr",
            Direction::Rtl => "rtl",
        }
    }

    /// `ltr` or `rtl` (any case); `None` for anything else.
    pub fn from_name(name: &str) -> Option<Direction> {
        [Direction::Ltr, Direction::Rtl]
            .into_iter()
            .find(|direction| name.trim().eq_ignore_ascii_case(direction.as_str()))
    }

    /// The direction of the script a language tag implies: its script subtag when it has one
    /// (`az-Arab` is right to left, `pa-Arab` too, `ar-Latn` left to right), else its language
    /// (`ar`, `he`, `fa`, `ur`, `ps`, `yi`, `ckb`, `dv` are right to left).
    pub fn of_tag(tag: &str) -> Direction {
        let mut subtags = tag.trim().split(['-', '_']);
        let language = subtags.next().unwrap_or_default();
        // The script is the 4-letter subtag right after the language (or an extended language).
        let script = subtags
            .take(4)
            .find(|subtag| subtag.len() == 4 && subtag.bytes().all(|b| b.is_ascii_alphabetic()));
        let rtl = match script {
            Some(script) => RTL_SCRIPTS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(script)),
            None => RTL_LANGUAGES
                .iter()
                .any(|known| known.eq_ignore_ascii_case(language)),
        };
        if rtl {
            Direction::Rtl
        } else {
            Direction::Ltr
        }
    }
}

/// Opens an embedding or override (LRE, RLE, LRO, RLO), closed by PDF.
const EMBEDDINGS: [char; 4] = ['\u{202A}', '\u{202B}', '\u{202D}', '\u{202E}'];
/// POP DIRECTIONAL FORMATTING.
const PDF: char = '\u{202C}';
/// Opens an isolate (LRI, RLI, FSI), closed by PDI.
const ISOLATES: [char; 3] = ['\u{2066}', '\u{2067}', '\u{2068}'];
/// POP DIRECTIONAL ISOLATE.
const PDI: char = '\u{2069}';

/// Whether `c` is a bidi formatting character: an embedding, override or isolate, their closers,
/// or a mark (LRM, RLM, ALM). A terminal, which cannot isolate a string, drops them.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// What a string has opened and not yet closed, innermost last: `true` for an isolate.
#[derive(Default)]
struct Open(Vec<bool>);

impl Open {
    /// Follows one character: an opener opens, a closer closes what it matches (if anything).
    fn follow(&mut self, c: char) {
        if EMBEDDINGS.contains(&c) {
            self.0.push(false);
        } else if ISOLATES.contains(&c) {
            self.0.push(true);
        } else if c == PDF {
            // A PDF closes the innermost embedding, never past an isolate.
            if self.0.last() == Some(&false) {
                self.0.pop();
            }
        } else if c == PDI {
            // A PDI closes the innermost isolate and every embedding opened inside it.
            if let Some(isolate) = self.0.iter().rposition(|isolate| *isolate) {
                self.0.truncate(isolate);
            }
        }
    }

    /// Whether a PDI now would close an isolate the string opened.
    fn in_isolate(&self) -> bool {
        self.0.contains(&true)
    }

    /// Appends the closers of everything still open, innermost first.
    fn close(&self, text: &mut String) {
        text.extend(
            self.0
                .iter()
                .rev()
                .map(|isolate| if *isolate { PDI } else { PDF }),
        );
    }
}

/// `text` with every embedding, override or isolate it opens and leaves open closed at its end,
/// so none reaches the text that follows it (the "Trojan Source" trick). Unchanged (and not
/// copied) when it leaves none open. Closers without an opener are left: they close nothing.
pub fn close_bidi_controls(text: &str) -> Cow<'_, str> {
    let mut open = Open::default();
    text.chars().for_each(|c| open.follow(c));
    if open.0.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut closed = String::with_capacity(text.len() + open.0.len() * 3);
    closed.push_str(text);
    open.close(&mut closed);
    Cow::Owned(closed)
}

/// FIRST STRONG ISOLATE: an isolate whose direction is its text's first strong character's.
const FSI: char = '\u{2068}';

/// `text` as a first-strong isolate (FSI … PDI): for a server string inside a message where no
/// element can isolate it (an `aria-label`, a message handed on as text). It takes its own
/// direction and cannot reorder the message around it: what it leaves open is closed inside the
/// isolate, and a PDI of its own that closes nothing of its own, which would end ours early, is
/// dropped.
pub fn isolate(text: &str) -> String {
    let mut isolated = String::with_capacity(text.len() + 6);
    isolated.push(FSI);
    let mut open = Open::default();
    for c in text.chars() {
        if c == PDI && !open.in_isolate() {
            continue;
        }
        open.follow(c);
        isolated.push(c);
    }
    open.close(&mut isolated);
    isolated.push(PDI);
    isolated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_is_right_to_left_when_its_script_is() {
        for tag in [
            "ar",
            "ar-EG",
            "AR_sa",
            "he",
            "he-IL",
            "iw",
            "fa",
            "fa-IR",
            "ur",
            "ps",
            "yi",
            "ckb",
            "ckb-IQ",
            "dv",
            "az-Arab",
            "pa-Arab-PK",
            "uz-Arab",
            "syr-Syrc",
            "dv-Thaa",
            "yi-Hebr",
        ] {
            assert_eq!(Direction::of_tag(tag), Direction::Rtl, "{tag}");
        }
        for tag in [
            "en",
            "en-US",
            "pt-BR",
            "es",
            "ar-Latn",
            "he-Latn",
            "tr",
            "arn",
            "hei",
            "zh-Hant-TW",
            "ku",
            "",
            "not a tag",
        ] {
            assert_eq!(Direction::of_tag(tag), Direction::Ltr, "{tag}");
        }
    }

    #[test]
    fn directions_read_and_write_as_html_dir_values() {
        assert_eq!(Direction::from_name("RTL"), Some(Direction::Rtl));
        assert_eq!(Direction::from_name(" ltr"), Some(Direction::Ltr));
        assert_eq!(Direction::from_name("auto"), None);
        assert_eq!(Direction::Rtl.as_str(), "rtl");
    }

    #[test]
    fn unpaired_bidi_controls_are_closed_at_the_end() {
        // Balanced or free of controls: the same text, not a copy.
        for text in [
            "plain",
            "\u{202E}evil\u{202C} \u{2066}isolate\u{2069}",
            "\u{202C}\u{2069}",
        ] {
            assert!(matches!(close_bidi_controls(text), Cow::Borrowed(same) if same == text));
        }
        assert_eq!(
            close_bidi_controls("\u{202E}txt.exe"),
            "\u{202E}txt.exe\u{202C}"
        );
        assert_eq!(close_bidi_controls("a\u{2067}b"), "a\u{2067}b\u{2069}");
        // Innermost first: an override inside an isolate closes before the isolate.
        assert_eq!(
            close_bidi_controls("\u{2068}x\u{202B}y"),
            "\u{2068}x\u{202B}y\u{202C}\u{2069}"
        );
        // A PDI closes the embeddings opened inside its isolate; a PDF cannot close an isolate.
        assert_eq!(
            close_bidi_controls("\u{2066}\u{202E}a\u{2069}"),
            "\u{2066}\u{202E}a\u{2069}"
        );
        assert_eq!(
            close_bidi_controls("\u{2066}a\u{202C}"),
            "\u{2066}a\u{202C}\u{2069}"
        );
        assert_eq!(
            close_bidi_controls("\u{202D}\u{202E}ab"),
            "\u{202D}\u{202E}ab\u{202C}\u{202C}"
        );
    }

    #[test]
    fn an_isolate_holds_its_text_and_every_control_the_text_leaves_open() {
        assert_eq!(isolate("city"), "\u{2068}city\u{2069}");
        assert_eq!(isolate(""), "\u{2068}\u{2069}");
        assert_eq!(isolate("שם"), "\u{2068}שם\u{2069}");
        // An override left open is closed inside the isolate, before its PDI.
        assert_eq!(
            isolate("\u{202E}evil"),
            "\u{2068}\u{202E}evil\u{202C}\u{2069}"
        );
        // A PDI that closes nothing of the text's own would end ours early: it is dropped; one
        // that closes the text's own isolate stays.
        assert_eq!(isolate("\u{2069}b"), "\u{2068}b\u{2069}");
        assert_eq!(
            isolate("\u{2067}a\u{2069}\u{2069}b\u{202C}"),
            "\u{2068}\u{2067}a\u{2069}b\u{202C}\u{2069}"
        );
        // Our FSI stays open until our PDI, the last character, and nothing is open after it,
        // so nothing of the text reaches what follows.
        for text in [
            "\u{202E}x",
            "\u{2066}\u{202B}y",
            "\u{202D}\u{202E}z",
            "a\u{2069}\u{2069}\u{202C}",
            "\u{2067}\u{2069}\u{2069}\u{2067}",
            "plain",
        ] {
            let isolated = isolate(text);
            let mut open = Open::default();
            let mut chars = isolated.chars().peekable();
            while let Some(c) = chars.next() {
                open.follow(c);
                if chars.peek().is_some() {
                    assert!(open.in_isolate(), "{text:?} ended early: {isolated:?}");
                }
            }
            assert!(open.0.is_empty(), "{text:?} left open: {isolated:?}");
        }
    }

    #[test]
    fn bidi_controls_are_recognized() {
        for c in [
            '\u{200E}', '\u{200F}', '\u{061C}', '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}',
        ] {
            assert!(is_bidi_control(c), "{c:?}");
        }
        for c in ['a', 'א', '\u{200B}', '\u{202F}', '\u{2065}', '\u{206A}'] {
            assert!(!is_bidi_control(c), "{c:?}");
        }
    }
}
