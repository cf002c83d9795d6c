//! The words of the system notification a surface shows for a request nobody is looking at: a
//! title naming the server and a body with the request's message, as plain text. The server's
//! strings are isolated (a notification has no element to isolate them) and cut to what a
//! notification shows, so a long message cannot push the rest out and its bidi controls cannot
//! reorder the title around it.

use crate::i18n::{isolate, text, Arg, Direction, Locale};

/// Most characters of the message a notification's body keeps (platforms show two to four lines).
pub const BODY_MAX_CHARS: usize = 180;
/// Most characters of the server's name the title keeps.
pub const SERVER_MAX_CHARS: usize = 60;

/// What a notification shows, and the language it is written in.
#[derive(Debug, Clone, PartialEq)]
pub struct NotificationText {
    /// "<server> needs your input", localized.
    pub title: String,
    /// The request's message, cut to [`BODY_MAX_CHARS`].
    pub body: String,
    /// The locale's tag (the notification's `lang`).
    pub lang: String,
    /// The locale's direction (the notification's `dir`).
    pub dir: Direction,
}

/// The notification for a request from `server` (already the shown name, e.g. "Unknown server")
/// asking `message`, in `locale`.
pub fn notification_text(locale: Locale, server: &str, message: &str) -> NotificationText {
    let server = isolate(&cut(server, SERVER_MAX_CHARS));
    NotificationText {
        title: text(
            locale,
            "mcp-elicitation-notification-title",
            &[("server", Arg::Text(&server))],
        ),
        body: isolate(&cut(message, BODY_MAX_CHARS)),
        lang: locale.tag(),
        dir: locale.direction(),
    }
}

/// `text` on one line (runs of whitespace and control characters become one space, bidi controls
/// stay for [`isolate`] to close), cut to at most `max` characters: at the last space in its
/// final fifth when there is one, so a word is not cut in two, and marked with an ellipsis.
pub fn cut(text: &str, max: usize) -> String {
    let mut line = String::with_capacity(text.len().min(max * 4));
    let mut chars = 0;
    let mut last_space = None;
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() || (c.is_control() && !crate::i18n::is_bidi_control(c)) {
            pending_space = !line.is_empty();
            continue;
        }
        let needed = usize::from(pending_space) + 1;
        if chars + needed > max {
            // One character for the ellipsis: drop back to a word's end, or to fit.
            let keep_from = max.saturating_sub(max / 5);
            match last_space {
                Some((at_chars, at_byte)) if at_chars >= keep_from => line.truncate(at_byte),
                _ => {
                    if chars + 1 > max {
                        if let Some((at, _)) = line.char_indices().last() {
                            line.truncate(at);
                        }
                    }
                }
            }
            line.push('…');
            return line;
        }
        if pending_space {
            last_space = Some((chars, line.len()));
            line.push(' ');
            chars += 1;
            pending_space = false;
        }
        line.push(c);
        chars += 1;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings::char_count;

    #[test]
    fn the_title_names_the_server_isolated_and_the_body_is_the_message() {
        let shown = notification_text(Locale::EnUs, "Weather", "Which city?");
        assert_eq!(shown.title, "\u{2068}Weather\u{2069} needs your input");
        assert_eq!(shown.body, "\u{2068}Which city?\u{2069}");
        assert_eq!(shown.lang, "en-US");
        assert_eq!(shown.dir, Direction::Ltr);
        let pt = notification_text(Locale::PtBr, "Clima", "Qual cidade?");
        assert_eq!(pt.title, "\u{2068}Clima\u{2069} precisa da sua resposta");
        assert_eq!(pt.lang, "pt-BR");
    }

    #[test]
    fn a_long_message_is_cut_at_a_word_with_an_ellipsis() {
        let message = "word ".repeat(100);
        let body = cut(&message, BODY_MAX_CHARS);
        assert!(char_count(&body) <= BODY_MAX_CHARS, "{body}");
        assert!(body.ends_with("word…"), "{body}");
        // One unbroken run is cut at the limit.
        let run = "x".repeat(500);
        let body = cut(&run, BODY_MAX_CHARS);
        assert_eq!(char_count(&body), BODY_MAX_CHARS);
        assert!(body.ends_with("x…"));
        // A short one is kept whole.
        assert_eq!(cut("short", BODY_MAX_CHARS), "short");
        assert_eq!(cut(&"y".repeat(180), 180), "y".repeat(180));
    }

    #[test]
    fn lines_and_controls_become_single_spaces() {
        assert_eq!(cut("  a\n\n\tb\u{0007}c  ", 50), "a b c");
        assert_eq!(cut("", 50), "");
        assert_eq!(cut("\n \t", 50), "");
    }

    #[test]
    fn a_servers_bidi_override_cannot_reach_the_title_around_it() {
        let shown = notification_text(Locale::EnUs, "\u{202E}evil", "\u{202E}txt\u{2069}");
        assert_eq!(
            shown.title,
            "\u{2068}\u{202E}evil\u{202C}\u{2069} needs your input"
        );
        // The message's stray PDI is dropped, its override closed inside the isolate.
        assert_eq!(shown.body, "\u{2068}\u{202E}txt\u{202C}\u{2069}");
    }

    #[test]
    fn the_server_name_is_cut_too() {
        let shown = notification_text(Locale::EnUs, &"s".repeat(200), "m");
        assert!(char_count(&shown.title) < SERVER_MAX_CHARS + 30);
    }
}
