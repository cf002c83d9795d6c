//! The terminal itself: where prompts are written (the controlling terminal, never stdout, which
//! carries the result), raw mode for single keys, styling rules and wrapping. Dropping a [`Term`]
//! restores the terminal, so every way out (return, error, panic unwinding) leaves it usable.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, queue, style, terminal};
use koder_mcp_elicitation_core::i18n::is_bidi_control;
use unicode_width::UnicodeWidthStr;

/// How output may look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Cursor movement and line redraws are allowed (false for `--plain` and `TERM=dumb`).
    pub rich: bool,
    /// Colours are allowed (false for `NO_COLOR`, `--plain` and `TERM=dumb`).
    pub color: bool,
}

impl Look {
    /// The look the environment asks for: `--plain`, `TERM=dumb` and `NO_COLOR` each take
    /// something away.
    pub fn from_env(plain: bool) -> Look {
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        // no-color.org: present and not empty.
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Look {
            rich: !plain && !dumb,
            color: !plain && !dumb && !no_color,
        }
    }
}

/// How a piece of text is emphasized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Normal,
    /// Labels and headings: bold.
    Strong,
    /// Hints and descriptions: dim.
    Quiet,
    /// Errors and warnings: red (or bold without colour).
    Alert,
    /// The host of a URL: bold and underlined.
    Host,
}

/// A key the prompts react to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Enter,
    Backspace,
    /// Esc or Ctrl-C.
    Cancel,
    /// Ctrl-D: ends multi-line entry.
    Finish,
    /// Ctrl-E: opens `$EDITOR` for a textarea.
    Editor,
    /// Ctrl-U: clears the line.
    Clear,
    /// Ctrl-R: rejects the request from any question.
    Reject,
}

/// What arrived while waiting for input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Key(Key),
    /// The window changed size (SIGWINCH).
    Resized,
}

/// The controlling terminal in raw mode.
pub struct Term {
    out: File,
    look: Look,
    width: usize,
}

impl Term {
    /// Opens `/dev/tty` and enters raw mode; `Err` when there is no terminal to ask on.
    pub fn open(look: Look) -> io::Result<Term> {
        let out = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
        terminal::enable_raw_mode()?;
        let width = current_width();
        Ok(Term { out, look, width })
    }

    /// The look in force.
    pub fn look(&self) -> Look {
        self.look
    }

    /// Columns available for text.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Re-reads the window size after a resize.
    pub fn refresh_width(&mut self) {
        self.width = current_width();
    }

    /// Writes text wrapped to the window, ending the line.
    pub fn line(&mut self, tone: Tone, text: &str) -> io::Result<()> {
        self.wrapped(tone, text, "")
    }

    /// Writes wrapped text with every row after the first indented by `indent`.
    pub fn wrapped(&mut self, tone: Tone, text: &str, indent: &str) -> io::Result<()> {
        let options = textwrap::Options::new(self.width.max(10)).subsequent_indent(indent);
        for paragraph in text.split('\n') {
            let rows = textwrap::wrap(paragraph, &options);
            if rows.is_empty() {
                self.raw("\r\n")?;
            }
            for row in rows {
                self.styled(tone, &row)?;
                self.raw("\r\n")?;
            }
        }
        self.out.flush()
    }

    /// Writes text with a tone, without ending the line.
    pub fn styled(&mut self, tone: Tone, text: &str) -> io::Result<()> {
        let text = sanitize(text);
        if !self.look.rich {
            return self.raw(&text);
        }
        let color = self.look.color;
        match tone {
            Tone::Normal => queue!(self.out, style::Print(&text))?,
            Tone::Strong => queue!(
                self.out,
                style::SetAttribute(style::Attribute::Bold),
                style::Print(&text),
                style::SetAttribute(style::Attribute::Reset)
            )?,
            Tone::Quiet => queue!(
                self.out,
                style::SetAttribute(style::Attribute::Dim),
                style::Print(&text),
                style::SetAttribute(style::Attribute::Reset)
            )?,
            Tone::Alert if color => queue!(
                self.out,
                style::SetForegroundColor(style::Color::Red),
                style::Print(&text),
                style::ResetColor
            )?,
            Tone::Alert => queue!(
                self.out,
                style::SetAttribute(style::Attribute::Bold),
                style::Print(&text),
                style::SetAttribute(style::Attribute::Reset)
            )?,
            Tone::Host => queue!(
                self.out,
                style::SetAttribute(style::Attribute::Bold),
                style::SetAttribute(style::Attribute::Underlined),
                style::Print(&text),
                style::SetAttribute(style::Attribute::Reset)
            )?,
        }
        Ok(())
    }

    /// Writes bytes as they are (already sanitized, or control sequences of our own).
    pub fn raw(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())
    }

    /// Flushes what was queued.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Moves up `rows` rows to column 0 and clears everything below (rich mode only).
    pub fn rewind(&mut self, rows: usize) -> io::Result<()> {
        queue!(self.out, cursor::MoveToColumn(0))?;
        if rows > 0 {
            queue!(self.out, cursor::MoveUp(rows.min(u16::MAX as usize) as u16))?;
        }
        queue!(
            self.out,
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
        Ok(())
    }

    /// Waits up to `timeout` for a key or a resize.
    pub fn next_input(&mut self, timeout: Duration) -> io::Result<Option<Input>> {
        if !event::poll(timeout)? {
            return Ok(None);
        }
        Ok(match event::read()? {
            Event::Key(key) => translate(key).map(Input::Key),
            Event::Resize(..) => {
                self.refresh_width();
                Some(Input::Resized)
            }
            _ => None,
        })
    }

    /// Leaves raw mode for a child process that owns the terminal (`$EDITOR`), then returns.
    pub fn suspend<T>(&mut self, run: impl FnOnce() -> T) -> io::Result<T> {
        terminal::disable_raw_mode()?;
        let result = run();
        terminal::enable_raw_mode()?;
        self.refresh_width();
        Ok(result)
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if self.look.rich {
            let _ = queue!(
                self.out,
                style::SetAttribute(style::Attribute::Reset),
                cursor::Show
            );
            let _ = self.out.flush();
        }
        let _ = terminal::disable_raw_mode();
    }
}

fn current_width() -> usize {
    terminal::size()
        .map(|(columns, _)| columns as usize)
        .unwrap_or(80)
        .max(1)
}

fn translate(key: KeyEvent) -> Option<Key> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    let control = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('c') if control => Key::Cancel,
        KeyCode::Char('d') if control => Key::Finish,
        KeyCode::Char('e') if control => Key::Editor,
        KeyCode::Char('u') if control => Key::Clear,
        KeyCode::Char('r') if control => Key::Reject,
        KeyCode::Char(_) if control => return None,
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Esc => Key::Cancel,
        KeyCode::Tab => Key::Char(' '),
        _ => return None,
    })
}

/// Server strings are text: control characters (escape sequences above all) are shown as
/// visible replacements, never sent to the terminal. So are bidi embeddings, overrides and
/// isolates, since a terminal cannot isolate a string and one would reorder the prompt around it;
/// bidi marks (LRM, RLM, ALM), which a translation may hold, are dropped.
pub fn sanitize(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}'))
        .map(|c| {
            if c == '\n' || !(c.is_control() || is_bidi_control(c)) {
                c
            } else {
                '\u{FFFD}'
            }
        })
        .collect()
}

/// Rows a line of text takes in a window `width` columns wide.
pub fn rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    text.split('\n')
        .map(|line| UnicodeWidthStr::width(line).max(1).div_ceil(width))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_never_reach_the_terminal() {
        assert_eq!(sanitize("a\u{1b}[2Jb\tc\nd"), "a\u{FFFD}[2Jb\u{FFFD}c\nd");
    }

    #[test]
    fn bidi_controls_never_reach_the_terminal() {
        assert_eq!(
            sanitize("\u{202E}exe.txt \u{2067}x\u{2069} \u{200F}שלום"),
            "\u{FFFD}exe.txt \u{FFFD}x\u{FFFD} שלום"
        );
    }

    #[test]
    fn rows_count_wrapped_and_wide_text() {
        assert_eq!(rows("", 10), 1);
        assert_eq!(rows("0123456789", 10), 1);
        assert_eq!(rows("0123456789a", 10), 2);
        assert_eq!(rows("ab\ncd", 10), 2);
        assert_eq!(rows("日本語日本", 4), 3);
    }
}
