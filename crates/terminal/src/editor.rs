//! A small line editor on raw-mode keys, so a prompt can be cancelled (Esc, Ctrl-C), time out
//! and show its countdown while the person types. Rich mode redraws the line in place; plain mode
//! only appends, for screen readers and logs.

use std::io;
use std::time::Duration;

use koder_mcp_elicitation_core::i18n::Arg;

use crate::messages::Messages;

use crate::lifecycle::{Lifecycle, Stop};
use crate::term::{rows, Input, Key, Term, Tone};

/// How often the loop wakes to check the clock and the server's signals.
const TICK: Duration = Duration::from_millis(100);

/// The terminal, the elicitation's clock and the language, for the length of one elicitation.
pub struct Ui<'a> {
    pub term: &'a mut Term,
    pub life: &'a mut Lifecycle,
    pub messages: Messages,
}

/// One question's input line.
#[derive(Debug, Clone, Default)]
pub struct Prompt {
    /// What the line starts with (the current value, so Enter keeps it).
    pub initial: String,
    /// Echo `•` instead of what is typed.
    pub masked: bool,
    /// Enter adds a line; Ctrl-D finishes.
    pub multiline: bool,
    /// `$VISUAL`/`$EDITOR`, opened with Ctrl-E on a multi-line prompt.
    pub editor: Option<String>,
    /// Return the first key instead of a line (menus).
    pub single_key: bool,
}

/// What the person did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Line(String),
    Key(Key),
    /// Ctrl-R: reject the whole request.
    Reject,
    Stop(Stop),
}

struct Line<'p> {
    prompt: &'p Prompt,
    buffer: String,
    countdown: Option<u64>,
    /// Rows between the top of the editing area and the cursor (rich mode).
    rows_above: usize,
}

/// Asks for one line (or one key); returns when answered or when the prompt must stop.
pub fn read(ui: &mut Ui, prompt: &Prompt) -> io::Result<Answer> {
    let mut line = Line {
        prompt,
        buffer: prompt.initial.clone(),
        countdown: None,
        rows_above: 0,
    };
    let rich = ui.term.look().rich;
    if rich {
        line.countdown = ui.life.countdown();
        redraw(ui, &mut line)?;
    } else {
        ui.term.raw("› ")?;
        let shown = shown(&line);
        ui.term
            .styled(Tone::Normal, &shown.replace('\n', "\r\n  "))?;
        ui.term.flush()?;
    }
    loop {
        if let Some(stop) = ui.life.check() {
            finish(ui, &mut line)?;
            return Ok(Answer::Stop(stop));
        }
        if rich {
            let countdown = ui.life.countdown();
            if countdown != line.countdown {
                line.countdown = countdown;
                redraw(ui, &mut line)?;
            }
        } else if let Some(seconds) = ui.life.announcement() {
            let message = announce(&ui.messages, seconds);
            ui.term.raw("\r\n")?;
            ui.term.line(Tone::Alert, &message)?;
            ui.term.raw("› ")?;
            let shown = shown(&line);
            ui.term
                .styled(Tone::Normal, &shown.replace('\n', "\r\n  "))?;
            ui.term.flush()?;
        }
        let Some(input) = ui.term.next_input(TICK)? else {
            continue;
        };
        let key = match input {
            Input::Resized => {
                if rich {
                    // The old rows reflowed to an unknown shape: start the area on a fresh row.
                    ui.term.raw("\r\n")?;
                    line.rows_above = 0;
                    redraw(ui, &mut line)?;
                }
                continue;
            }
            Input::Key(key) => key,
        };
        if prompt.single_key {
            finish(ui, &mut line)?;
            return Ok(match key {
                Key::Cancel => Answer::Stop(Stop::UserCancel),
                Key::Reject => Answer::Reject,
                other => Answer::Key(other),
            });
        }
        match key {
            Key::Cancel => {
                finish(ui, &mut line)?;
                return Ok(Answer::Stop(Stop::UserCancel));
            }
            Key::Reject => {
                finish(ui, &mut line)?;
                return Ok(Answer::Reject);
            }
            Key::Enter if prompt.multiline => {
                line.buffer.push('\n');
                if rich {
                    redraw(ui, &mut line)?;
                } else {
                    ui.term.raw("\r\n  ")?;
                    ui.term.flush()?;
                }
            }
            Key::Enter => {
                finish(ui, &mut line)?;
                return Ok(Answer::Line(line.buffer));
            }
            Key::Finish if prompt.multiline => {
                finish(ui, &mut line)?;
                return Ok(Answer::Line(line.buffer));
            }
            Key::Editor if prompt.multiline => {
                if let Some(editor) = &prompt.editor {
                    let edited = ui
                        .term
                        .suspend(|| edit_externally(editor, &line.buffer))??;
                    line.buffer = edited;
                    if rich {
                        line.rows_above = 0;
                        redraw(ui, &mut line)?;
                    } else {
                        ui.term.raw("› ")?;
                        ui.term
                            .styled(Tone::Normal, &line.buffer.replace('\n', "\r\n  "))?;
                        ui.term.flush()?;
                    }
                }
            }
            Key::Backspace => {
                let removed = line.buffer.pop();
                if rich {
                    redraw(ui, &mut line)?;
                } else if removed.is_some_and(|c| c != '\n') {
                    // What a cooked terminal echoes for an erase.
                    ui.term.raw("\u{8} \u{8}")?;
                    ui.term.flush()?;
                }
            }
            Key::Clear => {
                line.buffer.clear();
                if rich {
                    redraw(ui, &mut line)?;
                } else {
                    ui.term.raw("\r\n› ")?;
                    ui.term.flush()?;
                }
            }
            Key::Char(c) => {
                line.buffer.push(c);
                if rich {
                    redraw(ui, &mut line)?;
                } else {
                    let echo = if prompt.masked { '*' } else { c };
                    ui.term.styled(Tone::Normal, &echo.to_string())?;
                    ui.term.flush()?;
                }
            }
            Key::Finish | Key::Editor => {}
        }
    }
}

/// The countdown text (rich mode) and the announcement (plain mode), from the shared messages.
pub fn countdown_text(messages: &Messages, seconds: u64) -> String {
    messages.with(
        "mcp-elicitation-timeout_warning",
        &[("seconds", Arg::Number(seconds as f64))],
    )
}

fn announce(messages: &Messages, seconds: u64) -> String {
    messages.with(
        "mcp-elicitation-timeout-announce",
        &[("seconds", Arg::Number(seconds as f64))],
    )
}

fn shown(line: &Line) -> String {
    if line.prompt.masked {
        let mark = '•';
        line.buffer.chars().map(|_| mark).collect()
    } else {
        line.buffer.clone()
    }
}

fn redraw(ui: &mut Ui, line: &mut Line) -> io::Result<()> {
    ui.term.rewind(line.rows_above)?;
    let width = ui.term.width();
    let mut total = 0;
    if let Some(seconds) = line.countdown {
        let warning = countdown_text(&ui.messages, seconds);
        total += rows(&warning, width);
        ui.term.styled(Tone::Alert, &warning)?;
        ui.term.raw("\r\n")?;
    }
    let body = if line.prompt.single_key {
        String::new()
    } else {
        format!("› {}", shown(line).replace('\n', "\n  "))
    };
    total += rows(&body, width);
    ui.term.styled(Tone::Normal, &body.replace('\n', "\r\n"))?;
    line.rows_above = total.saturating_sub(1);
    ui.term.flush()
}

/// Ends the editing area: the countdown goes, the answer stays, the cursor moves on.
fn finish(ui: &mut Ui, line: &mut Line) -> io::Result<()> {
    if ui.term.look().rich {
        line.countdown = None;
        redraw(ui, line)?;
        if line.prompt.single_key {
            return ui.term.flush();
        }
    }
    ui.term.raw("\r\n")?;
    ui.term.flush()
}

/// Runs the editor on a temporary file holding `current`; the file's text comes back.
fn edit_externally(editor: &str, current: &str) -> io::Result<String> {
    let path = std::env::temp_dir().join(format!("koder-elicit-{}.txt", std::process::id()));
    std::fs::write(&path, current)?;
    // Through the shell, as git does, so `EDITOR="code --wait"` works.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(&path)
        .status();
    let edited = std::fs::read_to_string(&path);
    let _ = std::fs::remove_file(&path);
    status?;
    let edited = edited?;
    Ok(edited
        .strip_suffix('\n')
        .map(str::to_string)
        .unwrap_or(edited))
}
