//! A linear-time ECMA-262 regular-expression engine for JSON Schema `pattern`.
//!
//! JSON Schema says `pattern` is an ECMA-262 regular expression, matched unanchored, and the
//! test suite expects Unicode (`u` flag) semantics. Patterns come from servers, so they are
//! untrusted: a backtracking engine would let `^(a+)+$` freeze the page. Instead the pattern is
//! parsed into an AST, compiled into a Thompson NFA and run by a Pike VM, which visits each
//! program instruction at most once per input character: matching costs
//! O(len(text) × len(program)), whatever the pattern.
//!
//! Linear is not enough when both sides come from a hostile server (a pattern near the size cap
//! against a long default value), so the work is bounded twice: a compiled program has at most
//! [`MAX_PATTERN_PROGRAM`] instructions, and one match takes at most [`MAX_MATCH_STEPS`] VM steps. A
//! text that would need more is reported as not matching (fail closed: the form refuses the value
//! rather than freezing the page). Real patterns against real input stay far below that budget:
//! `^[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,255}$` against a 1,000-character text needs about 1% of it.
//! The last expensive result is remembered, so a form re-validating an unchanged value on every
//! keystroke elsewhere pays once.
//!
//! Only match / no-match is computed, so captures are not tracked and lazy quantifiers behave
//! like greedy ones (laziness changes which match is found, never whether one exists).
//! Features that cannot run in linear time (lookaround, backreferences) are refused with a
//! [`PatternError`] instead of being approximated.
//!
//! Deliberate deviations from the `u`-mode grammar, all documented where they happen:
//! - an escaped ASCII punctuation character (`\@`, `\:`, `\#`…) is accepted as itself, as
//!   without the `u` flag; it cannot change the meaning of any valid pattern;
//! - `\p{L}` / `\p{Letter}`, `\p{Lu}`, `\p{Ll}` and `\p{N}` are approximated with the Rust
//!   standard library's Unicode predicates (see [`Prop`]); `\p{Nd}` and `\p{Zs}` are exact.

use crate::limits::{
    MAX_MATCH_STEPS, MAX_PATTERN_CHARS, MAX_PATTERN_NESTING, MAX_PATTERN_PROGRAM,
    MAX_PATTERN_PROPERTY_NAME,
};
use std::fmt;
use std::sync::Mutex;

/// Matches cheaper than this many steps are not worth remembering.
const MEMO_MIN_STEPS: usize = 20_000;

/// Why a pattern was refused: a syntax error, an unsupported feature or a size limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub reason: String,
}

impl PatternError {
    fn new(reason: impl Into<String>) -> Self {
        PatternError {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for PatternError {}

/// A compiled pattern; cheap to match against any text in linear time.
#[derive(Debug)]
pub struct Pattern {
    source: String,
    program: Vec<Inst>,
    classes: Vec<Class>,
    /// Every match must start at the beginning of the input (the program opens with `^`).
    anchored: bool,
    /// The last expensive text matched and its verdict. A `Mutex` (never waited on: `try_lock`)
    /// so that compiled rules can be shared across threads.
    memo: Mutex<Option<(String, bool)>>,
}

impl Pattern {
    /// Parses and compiles an ECMA-262 pattern (Unicode mode, no flags).
    pub fn compile(source: &str) -> Result<Pattern, PatternError> {
        let chars: Vec<char> = source.chars().collect();
        if chars.len() > MAX_PATTERN_CHARS {
            return Err(PatternError::new(format!(
                "pattern is longer than {MAX_PATTERN_CHARS} characters"
            )));
        }
        let mut parser = Parser {
            chars,
            pos: 0,
            depth: 0,
            classes: Vec::new(),
        };
        let ast = parser.parse_disjunction()?;
        if let Some(c) = parser.peek() {
            // parse_disjunction only stops early on an unbalanced ')'.
            return Err(PatternError::new(format!(
                "unmatched '{c}' at position {}",
                parser.pos
            )));
        }
        let size = program_size(&ast).saturating_add(1);
        if size > MAX_PATTERN_PROGRAM {
            return Err(PatternError::new(format!(
                "pattern is too large once repetitions are expanded (more than {MAX_PATTERN_PROGRAM} instructions)"
            )));
        }
        let mut compiler = Compiler {
            program: Vec::with_capacity(size),
        };
        compiler.emit_node(&ast);
        compiler.program.push(Inst::Match);
        let anchored = matches!(compiler.program.first(), Some(Inst::Look(Look::Start)));
        Ok(Pattern {
            source: source.to_string(),
            program: compiler.program,
            classes: parser.classes,
            anchored,
            memo: Mutex::new(None),
        })
    }

    /// Whether the pattern matches anywhere in `text` (JSON Schema: unanchored search). A match
    /// that would take more than [`MAX_MATCH_STEPS`] steps counts as no match.
    pub fn is_match(&self, text: &str) -> bool {
        if let Ok(memo) = self.memo.try_lock() {
            if let Some((memo_text, verdict)) = memo.as_ref() {
                if memo_text == text {
                    return *verdict;
                }
            }
        }
        let (verdict, steps) = self.run(text);
        if steps >= MEMO_MIN_STEPS {
            if let Ok(mut memo) = self.memo.try_lock() {
                *memo = Some((text.to_string(), verdict));
            }
        }
        verdict
    }

    /// The Pike VM: the verdict and the steps it took (at most about [`MAX_MATCH_STEPS`]).
    fn run(&self, text: &str) -> (bool, usize) {
        let mut steps = 0usize;
        let verdict = self.run_counted(text, &mut steps);
        (verdict, steps)
    }

    fn run_counted(&self, text: &str, steps: &mut usize) -> bool {
        let len = self.program.len();
        let mut current = Threads::new(len);
        let mut next = Threads::new(len);
        let mut stack = Vec::new();
        let mut chars = text.chars().peekable();
        let mut prev: Option<char> = None;
        let mut at_start = true;
        loop {
            let here = Context {
                prev,
                next: chars.peek().copied(),
            };
            // Unanchored search: a new attempt starts at every position. An anchored program
            // can only succeed from position 0, so later attempts are skipped.
            if (at_start || !self.anchored)
                && self.add_thread(&mut current, &mut stack, 0, here, steps)
            {
                return true;
            }
            if *steps > MAX_MATCH_STEPS {
                return false;
            }
            if current.is_empty() && self.anchored {
                return false;
            }
            let Some(c) = chars.next() else {
                return false;
            };
            let after = Context {
                prev: Some(c),
                next: chars.peek().copied(),
            };
            next.clear();
            *steps = steps.saturating_add(current.dense.len());
            for &pc in &current.dense {
                let consumes = match self.program.get(pc) {
                    Some(Inst::Char(expected)) => *expected == u32::from(c),
                    Some(Inst::Set(index)) => {
                        self.classes.get(*index).is_some_and(|k| k.matches(c))
                    }
                    _ => false,
                };
                if consumes && self.add_thread(&mut next, &mut stack, pc + 1, after, steps) {
                    return true;
                }
            }
            if *steps > MAX_MATCH_STEPS {
                return false;
            }
            std::mem::swap(&mut current, &mut next);
            prev = Some(c);
            at_start = false;
        }
    }

    /// An upper bound of the VM steps [`Pattern::is_match`] can take on `text`: at most every
    /// instruction added and advanced once per character, and never more than the step budget.
    pub fn work_bound(&self, text: &str) -> usize {
        let per_char = self.program.len().saturating_mul(2);
        per_char
            .saturating_mul(crate::strings::char_count(text).saturating_add(1))
            .min(MAX_MATCH_STEPS.saturating_add(per_char))
    }

    /// Instructions in the compiled program.
    pub fn program_len(&self) -> usize {
        self.program.len()
    }

    /// The pattern as it was given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Adds `pc` and everything reachable from it without consuming input; true on `Match`.
    /// Uses an explicit stack so a long chain of jumps cannot overflow the call stack.
    fn add_thread(
        &self,
        set: &mut Threads,
        stack: &mut Vec<usize>,
        pc: usize,
        context: Context,
        steps: &mut usize,
    ) -> bool {
        stack.clear();
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            *steps = steps.saturating_add(1);
            if !set.insert(pc) {
                continue;
            }
            match self.program.get(pc) {
                Some(Inst::Match) => return true,
                Some(Inst::Jmp(target)) => stack.push(*target),
                Some(Inst::Split(first, second)) => {
                    stack.push(*second);
                    stack.push(*first);
                }
                Some(Inst::Look(look)) => {
                    if context.holds(*look) {
                        stack.push(pc + 1);
                    }
                }
                // Consuming instructions wait in the set for the next character.
                Some(Inst::Char(_)) | Some(Inst::Set(_)) | None => {}
            }
        }
        false
    }
}

/// The characters on either side of the current input position, for assertions.
#[derive(Debug, Clone, Copy)]
struct Context {
    prev: Option<char>,
    next: Option<char>,
}

impl Context {
    fn holds(self, look: Look) -> bool {
        match look {
            Look::Start => self.prev.is_none(),
            Look::End => self.next.is_none(),
            Look::WordBoundary => is_word(self.prev) != is_word(self.next),
            Look::NotWordBoundary => is_word(self.prev) == is_word(self.next),
        }
    }
}

/// ECMA `IsWordChar` without the `i` flag: `[A-Za-z0-9_]`.
fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A sparse set of program counters: O(1) insert, membership and clear.
#[derive(Debug)]
struct Threads {
    dense: Vec<usize>,
    sparse: Vec<usize>,
}

impl Threads {
    fn new(len: usize) -> Self {
        Threads {
            dense: Vec::with_capacity(len),
            sparse: vec![0; len],
        }
    }

    fn is_empty(&self) -> bool {
        self.dense.is_empty()
    }

    fn clear(&mut self) {
        self.dense.clear();
    }

    /// Inserts `pc`; false if it was already there (or is out of range).
    fn insert(&mut self, pc: usize) -> bool {
        let Some(slot) = self.sparse.get_mut(pc) else {
            return false;
        };
        if self.dense.get(*slot) == Some(&pc) {
            return false;
        }
        *slot = self.dense.len();
        self.dense.push(pc);
        true
    }
}

/// Zero-width assertions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    /// `^`: start of input (no multiline flag).
    Start,
    /// `$`: end of input (no multiline flag).
    End,
    /// `\b`
    WordBoundary,
    /// `\B`
    NotWordBoundary,
}

/// One Pike VM instruction.
#[derive(Debug, Clone)]
enum Inst {
    /// Consume exactly this code point.
    Char(u32),
    /// Consume one character of the class with this index.
    Set(usize),
    /// Continue only if the assertion holds here.
    Look(Look),
    /// Continue at both targets (the first is preferred, which only matters for captures).
    Split(usize, usize),
    /// Continue at the target.
    Jmp(usize),
    /// The pattern matched.
    Match,
}

/// The parsed pattern.
#[derive(Debug)]
enum Node {
    Empty,
    Char(u32),
    /// Index into the parser's class table, so expanded repetitions share one class.
    Set(usize),
    Look(Look),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

/// Instructions needed for `node`, saturating so that hostile counts cannot overflow.
fn program_size(node: &Node) -> usize {
    match node {
        Node::Empty => 0,
        Node::Char(_) | Node::Set(_) | Node::Look(_) => 1,
        Node::Concat(nodes) => nodes
            .iter()
            .fold(0usize, |acc, n| acc.saturating_add(program_size(n))),
        Node::Alt(branches) => {
            let body = branches
                .iter()
                .fold(0usize, |acc, n| acc.saturating_add(program_size(n)));
            // One split and one jump per branch but the last.
            body.saturating_add(branches.len().saturating_sub(1).saturating_mul(2))
        }
        Node::Repeat { node, min, max } => {
            let inner = program_size(node);
            let required = inner.saturating_mul(*min as usize);
            let optional = match max {
                None => inner.saturating_add(2),
                Some(max) => inner
                    .saturating_add(1)
                    .saturating_mul(max.saturating_sub(*min) as usize),
            };
            required.saturating_add(optional)
        }
    }
}

/// Emits instructions for an AST already checked against [`MAX_PATTERN_PROGRAM`].
struct Compiler {
    program: Vec<Inst>,
}

impl Compiler {
    fn pc(&self) -> usize {
        self.program.len()
    }

    fn patch_split_second(&mut self, at: usize, target: usize) {
        if let Some(Inst::Split(_, second)) = self.program.get_mut(at) {
            *second = target;
        }
    }

    fn emit_node(&mut self, node: &Node) {
        match node {
            Node::Empty => {}
            Node::Char(c) => self.program.push(Inst::Char(*c)),
            Node::Set(index) => self.program.push(Inst::Set(*index)),
            Node::Look(look) => self.program.push(Inst::Look(*look)),
            Node::Concat(nodes) => nodes.iter().for_each(|n| self.emit_node(n)),
            Node::Alt(branches) => {
                let mut jumps = Vec::new();
                let last = branches.len().saturating_sub(1);
                for (i, branch) in branches.iter().enumerate() {
                    if i == last {
                        self.emit_node(branch);
                    } else {
                        let split = self.pc();
                        self.program.push(Inst::Split(split + 1, 0));
                        self.emit_node(branch);
                        jumps.push(self.pc());
                        self.program.push(Inst::Jmp(0));
                        let next_branch = self.pc();
                        self.patch_split_second(split, next_branch);
                    }
                }
                let end = self.pc();
                for at in jumps {
                    if let Some(Inst::Jmp(target)) = self.program.get_mut(at) {
                        *target = end;
                    }
                }
            }
            // Repeating something that emits nothing emits nothing, however large the count
            // (`(?:){4294967295}` must not loop four billion times).
            Node::Repeat { node, .. } if program_size(node) == 0 => {}
            Node::Repeat { node, min, max } => {
                for _ in 0..*min {
                    self.emit_node(node);
                }
                match max {
                    None => {
                        // L: split L+1, end; <node>; jmp L; end:
                        let split = self.pc();
                        self.program.push(Inst::Split(split + 1, 0));
                        self.emit_node(node);
                        self.program.push(Inst::Jmp(split));
                        let end = self.pc();
                        self.patch_split_second(split, end);
                    }
                    Some(max) => {
                        // x{n,m} = x…x (n times) then (m-n) optional copies; `x?x?` and
                        // `(x(x)?)?` accept the same strings, and only acceptance matters here.
                        for _ in *min..*max {
                            let split = self.pc();
                            self.program.push(Inst::Split(split + 1, 0));
                            self.emit_node(node);
                            let end = self.pc();
                            self.patch_split_second(split, end);
                        }
                    }
                }
            }
        }
    }
}

/// The shorthand classes `\d`, `\w`, `\s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perl {
    Digit,
    Word,
    Space,
}

impl Perl {
    fn matches(self, c: char) -> bool {
        match self {
            Perl::Digit => c.is_ascii_digit(),
            Perl::Word => is_word(Some(c)),
            Perl::Space => is_ecma_space(c),
        }
    }
}

/// ECMA `WhiteSpace` or `LineTerminator`: TAB, VT, FF, SP, NBSP, ZWNBSP, Zs, LF, CR, LS, PS.
fn is_ecma_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{feff}' | '\u{2028}' | '\u{2029}'
    ) || in_table(u32::from(c), SPACE_SEPARATOR)
}

/// Unicode properties accepted in `\p{...}` / `\P{...}`.
///
/// Exact: `Nd` (table, Unicode 17), `Zs`, `Z`, `Cc`, `White_Space`, `Alphabetic`,
/// `Uppercase`, `Lowercase`, `ASCII`, `ASCII_Hex_Digit`, `Any`. Approximations (the standard
/// library exposes binary properties, not general categories): `L` uses `Alphabetic`
/// (which adds letter numbers and some combining marks), `Lu`/`Ll` use `Uppercase` /
/// `Lowercase`, `N` uses `char::is_numeric` (exactly Nd ∪ Nl ∪ No).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prop {
    Any,
    Ascii,
    AsciiHexDigit,
    Alphabetic,
    Uppercase,
    Lowercase,
    WhiteSpace,
    Letter,
    UppercaseLetter,
    LowercaseLetter,
    Number,
    DecimalNumber,
    Separator,
    SpaceSeparator,
    Control,
}

impl Prop {
    fn matches(self, c: char) -> bool {
        let cp = u32::from(c);
        match self {
            Prop::Any => true,
            Prop::Ascii => c.is_ascii(),
            Prop::AsciiHexDigit => c.is_ascii_hexdigit(),
            Prop::Alphabetic | Prop::Letter => c.is_alphabetic(),
            Prop::Uppercase | Prop::UppercaseLetter => c.is_uppercase(),
            Prop::Lowercase | Prop::LowercaseLetter => c.is_lowercase(),
            Prop::WhiteSpace => c.is_whitespace(),
            Prop::Number => c.is_numeric(),
            Prop::DecimalNumber => in_table(cp, DECIMAL_NUMBER),
            Prop::Separator => in_table(cp, SPACE_SEPARATOR) || c == '\u{2028}' || c == '\u{2029}',
            Prop::SpaceSeparator => in_table(cp, SPACE_SEPARATOR),
            Prop::Control => c.is_control(),
        }
    }

    /// Resolves a `General_Category` value (short name, long name or alias).
    fn general_category(value: &str) -> Option<Prop> {
        Some(match value {
            "L" | "Letter" => Prop::Letter,
            "Lu" | "Uppercase_Letter" => Prop::UppercaseLetter,
            "Ll" | "Lowercase_Letter" => Prop::LowercaseLetter,
            "N" | "Number" => Prop::Number,
            "Nd" | "Decimal_Number" | "digit" => Prop::DecimalNumber,
            "Z" | "Separator" => Prop::Separator,
            "Zs" | "Space_Separator" => Prop::SpaceSeparator,
            "Cc" | "Control" | "cntrl" => Prop::Control,
            _ => return None,
        })
    }

    /// Resolves a binary property name (short or long).
    fn binary(name: &str) -> Option<Prop> {
        Some(match name {
            "Any" => Prop::Any,
            "ASCII" => Prop::Ascii,
            "ASCII_Hex_Digit" | "AHex" => Prop::AsciiHexDigit,
            "Alphabetic" | "Alpha" => Prop::Alphabetic,
            "Uppercase" | "Upper" => Prop::Uppercase,
            "Lowercase" | "Lower" => Prop::Lowercase,
            "White_Space" | "space" => Prop::WhiteSpace,
            _ => return None,
        })
    }
}

/// Whether `cp` falls in a sorted table of inclusive ranges.
fn in_table(cp: u32, table: &[(u32, u32)]) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// General category Zs (Unicode 17).
const SPACE_SEPARATOR: &[(u32, u32)] = &[
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
];

/// General category Nd (Unicode 17), generated from a conforming ECMAScript engine.
const DECIMAL_NUMBER: &[(u32, u32)] = &[
    (0x30, 0x39),
    (0x660, 0x669),
    (0x6F0, 0x6F9),
    (0x7C0, 0x7C9),
    (0x966, 0x96F),
    (0x9E6, 0x9EF),
    (0xA66, 0xA6F),
    (0xAE6, 0xAEF),
    (0xB66, 0xB6F),
    (0xBE6, 0xBEF),
    (0xC66, 0xC6F),
    (0xCE6, 0xCEF),
    (0xD66, 0xD6F),
    (0xDE6, 0xDEF),
    (0xE50, 0xE59),
    (0xED0, 0xED9),
    (0xF20, 0xF29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x17E0, 0x17E9),
    (0x1810, 0x1819),
    (0x1946, 0x194F),
    (0x19D0, 0x19D9),
    (0x1A80, 0x1A89),
    (0x1A90, 0x1A99),
    (0x1B50, 0x1B59),
    (0x1BB0, 0x1BB9),
    (0x1C40, 0x1C49),
    (0x1C50, 0x1C59),
    (0xA620, 0xA629),
    (0xA8D0, 0xA8D9),
    (0xA900, 0xA909),
    (0xA9D0, 0xA9D9),
    (0xA9F0, 0xA9F9),
    (0xAA50, 0xAA59),
    (0xABF0, 0xABF9),
    (0xFF10, 0xFF19),
    (0x104A0, 0x104A9),
    (0x10D30, 0x10D39),
    (0x10D40, 0x10D49),
    (0x11066, 0x1106F),
    (0x110F0, 0x110F9),
    (0x11136, 0x1113F),
    (0x111D0, 0x111D9),
    (0x112F0, 0x112F9),
    (0x11450, 0x11459),
    (0x114D0, 0x114D9),
    (0x11650, 0x11659),
    (0x116C0, 0x116C9),
    (0x116D0, 0x116E3),
    (0x11730, 0x11739),
    (0x118E0, 0x118E9),
    (0x11950, 0x11959),
    (0x11BF0, 0x11BF9),
    (0x11C50, 0x11C59),
    (0x11D50, 0x11D59),
    (0x11DA0, 0x11DA9),
    (0x11DE0, 0x11DE9),
    (0x11F50, 0x11F59),
    (0x16130, 0x16139),
    (0x16A60, 0x16A69),
    (0x16AC0, 0x16AC9),
    (0x16B50, 0x16B59),
    (0x16D70, 0x16D79),
    (0x1CCF0, 0x1CCF9),
    (0x1D7CE, 0x1D7FF),
    (0x1E140, 0x1E149),
    (0x1E2F0, 0x1E2F9),
    (0x1E4F0, 0x1E4F9),
    (0x1E5F1, 0x1E5FA),
    (0x1E950, 0x1E959),
    (0x1FBF0, 0x1FBF9),
];

/// A class member that is not a plain range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClassItem {
    Perl { kind: Perl, negated: bool },
    Prop { prop: Prop, negated: bool },
}

impl ClassItem {
    fn matches(self, c: char) -> bool {
        match self {
            ClassItem::Perl { kind, negated } => kind.matches(c) != negated,
            ClassItem::Prop { prop, negated } => prop.matches(c) != negated,
        }
    }
}

/// A character class: sorted, merged code-point ranges plus shorthand / property members.
#[derive(Debug, Clone, Default)]
struct Class {
    negated: bool,
    ranges: Vec<(u32, u32)>,
    items: Vec<ClassItem>,
}

impl Class {
    fn matches(&self, c: char) -> bool {
        let hit = in_table(u32::from(c), &self.ranges) || self.items.iter().any(|i| i.matches(c));
        hit != self.negated
    }

    fn add_item(&mut self, item: ClassItem) {
        if !self.items.contains(&item) {
            self.items.push(item);
        }
    }

    /// Sorts and merges the ranges so matching is a binary search.
    fn normalize(&mut self) {
        crate::sort::sort_by_less(&mut self.ranges, |a, b| a < b);
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(self.ranges.len());
        for &(lo, hi) in &self.ranges {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        self.ranges = merged;
    }
}

/// One element of a bracketed class: a single code point or a set.
enum ClassAtom {
    Single(u32),
    Item(ClassItem),
}

/// Recursive-descent parser for the ECMA-262 `u`-mode pattern grammar.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    classes: Vec<Class>,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, what: impl fmt::Display) -> PatternError {
        PatternError::new(format!("{what} at position {}", self.pos))
    }

    fn add_class(&mut self, mut class: Class) -> Node {
        class.normalize();
        self.classes.push(class);
        Node::Set(self.classes.len() - 1)
    }

    fn parse_disjunction(&mut self) -> Result<Node, PatternError> {
        let mut branches = vec![self.parse_alternative()?];
        while self.eat('|') {
            branches.push(self.parse_alternative()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Empty)
        } else {
            Node::Alt(branches)
        })
    }

    fn parse_alternative(&mut self) -> Result<Node, PatternError> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.parse_term()?);
        }
        Ok(match terms.len() {
            0 => Node::Empty,
            1 => terms.pop().unwrap_or(Node::Empty),
            _ => Node::Concat(terms),
        })
    }

    fn parse_term(&mut self) -> Result<Node, PatternError> {
        let start = self.pos;
        let Some(c) = self.bump() else {
            return Ok(Node::Empty);
        };
        let atom = match c {
            '^' => return self.assertion(Look::Start),
            '$' => return self.assertion(Look::End),
            '\\' if self.peek() == Some('b') => {
                self.pos += 1;
                return self.assertion(Look::WordBoundary);
            }
            '\\' if self.peek() == Some('B') => {
                self.pos += 1;
                return self.assertion(Look::NotWordBoundary);
            }
            '(' => self.parse_group()?,
            '[' => self.parse_class()?,
            '.' => {
                let mut class = Class {
                    negated: true,
                    ..Class::default()
                };
                // `.` excludes the ECMA line terminators (no `s` flag).
                class.ranges = vec![(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];
                self.add_class(class)
            }
            '*' | '+' | '?' => {
                self.pos = start;
                return Err(self.error(format!("nothing to repeat before '{c}'")));
            }
            '{' => {
                self.pos = start;
                return Err(self.error("lone '{' (write \\{ for a literal brace)"));
            }
            '}' | ']' => {
                self.pos = start;
                return Err(self.error(format!("lone '{c}' (write \\{c} for a literal character)")));
            }
            '\\' => self.parse_atom_escape()?,
            other => Node::Char(u32::from(other)),
        };
        self.parse_quantifier(atom)
    }

    /// An assertion is not quantifiable in Unicode mode.
    fn assertion(&mut self, look: Look) -> Result<Node, PatternError> {
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(self.error("nothing to repeat (an assertion cannot be quantified)"));
        }
        Ok(Node::Look(look))
    }

    fn parse_quantifier(&mut self, atom: Node) -> Result<Node, PatternError> {
        let (min, max) = match self.peek() {
            Some('*') => {
                self.pos += 1;
                (0, None)
            }
            Some('+') => {
                self.pos += 1;
                (1, None)
            }
            Some('?') => {
                self.pos += 1;
                (0, Some(1))
            }
            Some('{') => self.parse_braces()?,
            _ => return Ok(atom),
        };
        // A lazy quantifier accepts the same strings as the greedy one.
        self.eat('?');
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// `{n}`, `{n,}` or `{n,m}`; anything else after an atom is a syntax error in `u` mode.
    fn parse_braces(&mut self) -> Result<(u32, Option<u32>), PatternError> {
        let open = self.pos;
        self.pos += 1;
        let Some(min) = self.parse_decimal() else {
            self.pos = open;
            return Err(self.error("incomplete quantifier '{'"));
        };
        let max = if self.eat(',') {
            if self.peek() == Some('}') {
                None
            } else {
                match self.parse_decimal() {
                    Some(max) => Some(max),
                    None => {
                        self.pos = open;
                        return Err(self.error("incomplete quantifier '{'"));
                    }
                }
            }
        } else {
            Some(min)
        };
        if !self.eat('}') {
            self.pos = open;
            return Err(self.error("incomplete quantifier '{'"));
        }
        if let Some(max) = max {
            if max < min {
                self.pos = open;
                return Err(self.error("numbers out of order in {} quantifier"));
            }
        }
        Ok((min, max))
    }

    /// Decimal digits, saturating at `u32::MAX` (the size check rejects such counts later).
    fn parse_decimal(&mut self) -> Option<u32> {
        let mut value: Option<u32> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.pos += 1;
            value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(d));
        }
        value
    }

    fn parse_group(&mut self) -> Result<Node, PatternError> {
        let open = self.pos.saturating_sub(1);
        if self.eat('?') {
            match self.bump() {
                Some(':') => {}
                Some('=') | Some('!') => {
                    self.pos = open;
                    return Err(self.error(
                        "lookahead (?= / ?!) is not supported: it cannot be matched in linear time",
                    ));
                }
                Some('<') if matches!(self.peek(), Some('=' | '!')) => {
                    self.pos = open;
                    return Err(self.error(
                        "lookbehind (?<= / ?<!) is not supported: it cannot be matched in linear time",
                    ));
                }
                Some('<') => self.parse_group_name()?,
                _ => {
                    self.pos = open;
                    return Err(
                        self.error("invalid group: '(?' must be followed by ':' or '<name>'")
                    );
                }
            }
        }
        self.depth += 1;
        if self.depth > MAX_PATTERN_NESTING {
            return Err(self.error(format!(
                "groups are nested deeper than {MAX_PATTERN_NESTING}"
            )));
        }
        let inner = self.parse_disjunction()?;
        self.depth -= 1;
        if !self.eat(')') {
            self.pos = open;
            return Err(self.error("unterminated group"));
        }
        Ok(inner)
    }

    /// Skips a group name (`(?<name>`); captures are not needed, only the syntax is checked.
    fn parse_group_name(&mut self) -> Result<(), PatternError> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == '>' {
                break;
            }
            let ok = if self.pos == start {
                c.is_alphabetic() || c == '_' || c == '$'
            } else {
                c.is_alphanumeric() || c == '_' || c == '$' || c == '\u{200c}' || c == '\u{200d}'
            };
            if !ok {
                return Err(self.error("invalid capture group name"));
            }
            self.pos += 1;
        }
        if self.pos == start || !self.eat('>') {
            return Err(self.error("invalid capture group name"));
        }
        Ok(())
    }

    /// After a `\` outside a class (`\b` and `\B` are handled by the caller).
    fn parse_atom_escape(&mut self) -> Result<Node, PatternError> {
        let escape_at = self.pos.saturating_sub(1);
        let Some(c) = self.peek() else {
            return Err(self.error("'\\' at end of pattern"));
        };
        match c {
            '1'..='9' => {
                self.pos = escape_at;
                Err(self.error(
                    "backreferences (\\1…\\9) are not supported: they cannot be matched in linear time",
                ))
            }
            'k' => {
                self.pos = escape_at;
                Err(self.error(
                    "named backreferences (\\k<name>) are not supported: they cannot be matched in linear time",
                ))
            }
            'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'p' | 'P' => {
                let item = self.parse_class_escape_set()?;
                let mut class = Class::default();
                class.add_item(item);
                Ok(self.add_class(class))
            }
            _ => Ok(Node::Char(self.parse_character_escape()?)),
        }
    }

    /// `\d \D \w \W \s \S \p{…} \P{…}` (the backslash already consumed, the letter not).
    fn parse_class_escape_set(&mut self) -> Result<ClassItem, PatternError> {
        let c = self.bump().unwrap_or('\0');
        let perl = |kind, negated| Ok(ClassItem::Perl { kind, negated });
        match c {
            'd' => perl(Perl::Digit, false),
            'D' => perl(Perl::Digit, true),
            'w' => perl(Perl::Word, false),
            'W' => perl(Perl::Word, true),
            's' => perl(Perl::Space, false),
            'S' => perl(Perl::Space, true),
            'p' | 'P' => {
                let prop = self.parse_property()?;
                Ok(ClassItem::Prop {
                    prop,
                    negated: c == 'P',
                })
            }
            _ => Err(self.error("invalid escape")),
        }
    }

    /// The `{Name}` or `{Name=Value}` after `\p` / `\P`.
    fn parse_property(&mut self) -> Result<Prop, PatternError> {
        let start = self.pos.saturating_sub(2);
        if !self.eat('{') {
            self.pos = start;
            return Err(self.error("invalid property escape: \\p must be followed by {Name}"));
        }
        let mut body = String::new();
        loop {
            match self.bump() {
                Some('}') => break,
                Some(c) if body.len() < MAX_PATTERN_PROPERTY_NAME => body.push(c),
                _ => {
                    self.pos = start;
                    return Err(self.error("invalid property escape: missing '}' after the name"));
                }
            }
        }
        let resolved = match body.split_once('=') {
            Some(("General_Category" | "gc", value)) => Prop::general_category(value),
            Some(("Script" | "sc" | "Script_Extensions" | "scx", _)) => {
                self.pos = start;
                return Err(self.error(format!(
                    "Unicode script properties (\\p{{{body}}}) are not supported"
                )));
            }
            Some(_) => None,
            None => Prop::general_category(&body).or_else(|| Prop::binary(&body)),
        };
        resolved.ok_or_else(|| {
            self.pos = start;
            self.error(format!(
                "unknown or unsupported Unicode property \\p{{{body}}} (supported: L, Lu, Ll, N, Nd, Z, Zs, Cc, Alphabetic, Uppercase, Lowercase, White_Space, ASCII, ASCII_Hex_Digit, Any)"
            ))
        })
    }

    /// A `CharacterEscape` (the backslash consumed, the escape letter not).
    fn parse_character_escape(&mut self) -> Result<u32, PatternError> {
        let escape_at = self.pos.saturating_sub(1);
        let Some(c) = self.bump() else {
            return Err(self.error("'\\' at end of pattern"));
        };
        let value = match c {
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    self.pos = escape_at;
                    return Err(
                        self.error("invalid decimal escape (octal escapes are not allowed)")
                    );
                }
                0
            }
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(letter) % 32
                }
                _ => {
                    self.pos = escape_at;
                    return Err(
                        self.error("invalid control escape (\\c must be followed by a letter)")
                    );
                }
            },
            'x' => match (self.hex_digit_at(0), self.hex_digit_at(1)) {
                (Some(hi), Some(lo)) => {
                    self.pos += 2;
                    hi * 16 + lo
                }
                _ => {
                    self.pos = escape_at;
                    return Err(self.error("invalid \\x escape (two hex digits expected)"));
                }
            },
            'u' => self.parse_unicode_escape(escape_at)?,
            // Unicode mode allows identity escapes of syntax characters, '/' and (in a class)
            // '-' only; other ASCII punctuation is accepted too (as without the `u` flag)
            // because it is unambiguous and schemas often contain escapes such as `\@`.
            c if c.is_ascii_punctuation() => u32::from(c),
            other => {
                self.pos = escape_at;
                return Err(self.error(format!("invalid escape '\\{other}'")));
            }
        };
        Ok(value)
    }

    fn hex_digit_at(&self, offset: usize) -> Option<u32> {
        self.peek_at(offset).and_then(|c| c.to_digit(16))
    }

    /// Reads four hex digits at the cursor, if present.
    fn hex4(&mut self) -> Option<u32> {
        let mut value = 0;
        for offset in 0..4 {
            value = value * 16 + self.hex_digit_at(offset)?;
        }
        self.pos += 4;
        Some(value)
    }

    /// `\uHHHH` (joining a surrogate pair written as two escapes) or `\u{H…}`.
    fn parse_unicode_escape(&mut self, escape_at: usize) -> Result<u32, PatternError> {
        if self.eat('{') {
            let mut value: u32 = 0;
            let mut digits = 0;
            while let Some(d) = self.hex_digit_at(0) {
                self.pos += 1;
                digits += 1;
                value = value.saturating_mul(16).saturating_add(d);
            }
            if digits == 0 || !self.eat('}') || value > 0x10FFFF {
                self.pos = escape_at;
                return Err(self.error("invalid \\u{…} escape (at most 10FFFF)"));
            }
            return Ok(value);
        }
        let Some(lead) = self.hex4() else {
            self.pos = escape_at;
            return Err(self.error("invalid \\u escape (four hex digits expected)"));
        };
        if (0xD800..=0xDBFF).contains(&lead)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let save = self.pos;
            self.pos += 2;
            match self.hex4() {
                Some(trail) if (0xDC00..=0xDFFF).contains(&trail) => {
                    return Ok(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        // A lone surrogate is kept as a code point that no Rust string can contain.
        Ok(lead)
    }

    /// A bracketed class; the `[` already consumed.
    fn parse_class(&mut self) -> Result<Node, PatternError> {
        let open = self.pos.saturating_sub(1);
        let mut class = Class {
            negated: self.eat('^'),
            ..Class::default()
        };
        loop {
            match self.peek() {
                None => {
                    self.pos = open;
                    return Err(self.error("unterminated character class"));
                }
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let first = self.parse_class_atom()?;
            let is_range = self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None);
            if !is_range {
                match first {
                    ClassAtom::Single(c) => class.ranges.push((c, c)),
                    ClassAtom::Item(item) => class.add_item(item),
                }
                continue;
            }
            self.pos += 1; // the '-'
            let second = self.parse_class_atom()?;
            match (first, second) {
                (ClassAtom::Single(lo), ClassAtom::Single(hi)) => {
                    if lo > hi {
                        return Err(self.error("range out of order in character class"));
                    }
                    class.ranges.push((lo, hi));
                }
                _ => {
                    return Err(self.error(
                        "invalid character class range (a class escape cannot bound a range)",
                    ))
                }
            }
        }
        Ok(self.add_class(class))
    }

    fn parse_class_atom(&mut self) -> Result<ClassAtom, PatternError> {
        let Some(c) = self.bump() else {
            return Err(self.error("unterminated character class"));
        };
        if c != '\\' {
            return Ok(ClassAtom::Single(u32::from(c)));
        }
        let escape_at = self.pos.saturating_sub(1);
        match self.peek() {
            None => Err(self.error("'\\' at end of pattern")),
            Some('b') => {
                // Inside a class `\b` is backspace.
                self.pos += 1;
                Ok(ClassAtom::Single(0x08))
            }
            Some('d' | 'D' | 'w' | 'W' | 's' | 'S' | 'p' | 'P') => {
                Ok(ClassAtom::Item(self.parse_class_escape_set()?))
            }
            Some('1'..='9') => {
                self.pos = escape_at;
                Err(self.error("invalid decimal escape in character class"))
            }
            Some('B') | Some('k') => {
                self.pos = escape_at;
                Err(self.error("invalid escape in character class"))
            }
            Some(_) => Ok(ClassAtom::Single(self.parse_character_escape()?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        Pattern::compile(pattern)
            .unwrap_or_else(|e| panic!("{pattern:?} should compile: {e}"))
            .is_match(text)
    }

    fn rejects(pattern: &str) -> String {
        match Pattern::compile(pattern) {
            Ok(_) => panic!("{pattern:?} should be refused"),
            Err(e) => e.reason,
        }
    }

    #[test]
    fn search_is_unanchored() {
        assert!(matches("a+", "xxaxx"));
        assert!(matches("", "anything"));
        assert!(matches("", ""));
        assert!(!matches("b", "aaa"));
        assert!(matches("^abc$", "abc"));
        assert!(!matches("^abc$", "abc\n"));
        assert!(!matches("^abc$", "xabc"));
        assert!(matches("c$", "abc"));
        assert!(!matches("a$", "ab"));
    }

    #[test]
    fn alternation_groups_and_quantifiers() {
        assert!(matches("^(cat|dog)s?$", "dogs"));
        assert!(matches("^(?:cat|dog)s?$", "cat"));
        assert!(!matches("^(?:cat|dog)s?$", "cow"));
        assert!(matches("^(?<animal>cat|dog)$", "cat"));
        assert!(matches("^a|b$", "ax"));
        assert!(matches("^(|a)$", ""));
        assert!(matches("^a{3}$", "aaa"));
        assert!(!matches("^a{3}$", "aa"));
        assert!(!matches("^a{3}$", "aaaa"));
        assert!(matches("^a{2,}$", "aaaaa"));
        assert!(!matches("^a{2,}$", "a"));
        assert!(matches("^a{2,3}$", "aaa"));
        assert!(!matches("^a{2,3}$", "aaaa"));
        assert!(matches("^a{0}$", ""));
        assert!(matches("^a*?b+?c??$", "aabbb"));
        assert!(matches("^a{1,2}?$", "aa"));
        assert!(matches("^(?:a*)*$", "aaa"));
        assert!(matches("^(?:a|)*b$", "aab"));
        assert!(matches("^(a+|b+)*c$", "aabbac"));
    }

    #[test]
    fn dot_and_classes() {
        assert!(matches("^.$", "é"));
        assert!(matches("^.$", "😀"));
        assert!(!matches("^.$", "\n"));
        assert!(!matches("^.$", "\u{2028}"));
        assert!(matches("^[a-c]+$", "abcabc"));
        assert!(!matches("^[a-c]+$", "abd"));
        assert!(matches("^[^a-c]$", "d"));
        assert!(!matches("^[^a-c]$", "b"));
        assert!(matches("^[-a]$", "-"));
        assert!(matches("^[a-]$", "-"));
        assert!(matches("^[\\w.-]+$", "a.b-c_d"));
        assert!(matches("^[\\d\\s]+$", "1 2\t3"));
        assert!(!matches("^[\\D]$", "5"));
        assert!(matches("^[\\b]$", "\u{8}"));
        assert!(matches("^[\\]\\[]+$", "[]"));
        assert!(!matches("[]", "a"));
        assert!(matches("^[^]$", "\n"));
        assert!(matches("^[😀-😂]$", "😁"));
        assert!(matches("^[\\u{1F600}-\\u{1F602}]$", "😁"));
        assert!(matches("^[\\uD83D\\uDE00]$", "😀"));
        assert!(matches("^[\\P{L}]+$", "123 !"));
        assert!(matches("^[\\-]$", "-"));
    }

    #[test]
    fn shorthand_classes_have_ecma_meaning() {
        assert!(matches("^\\d$", "7"));
        assert!(!matches("^\\d$", "\u{07c0}"));
        assert!(matches("^\\D$", "\u{07c0}"));
        assert!(matches("^\\w$", "_"));
        assert!(!matches("^\\w$", "é"));
        assert!(matches("^\\W$", "é"));
        for space in [
            " ", "\t", "\u{b}", "\u{c}", "\u{a0}", "\u{feff}", "\n", "\r", "\u{2029}", "\u{2003}",
            "\u{1680}", "\u{3000}",
        ] {
            assert!(matches("^\\s$", space), "{space:?}");
            assert!(!matches("^\\S$", space), "{space:?}");
        }
        assert!(!matches("^\\s$", "\u{1}"));
        assert!(!matches("^\\s$", "\u{2013}"));
        assert!(!matches("^\\s$", "\u{200b}"));
    }

    #[test]
    fn word_boundaries() {
        assert!(matches("\\bcat\\b", "a cat sat"));
        assert!(!matches("\\bcat\\b", "concatenate"));
        assert!(matches("\\Bcat\\B", "concatenate"));
        assert!(matches("^\\b", "a"));
        assert!(!matches("^\\b", " "));
        assert!(!matches("\\b", ""));
        assert!(matches("\\B", ""));
    }

    #[test]
    fn escapes() {
        assert!(matches("^\\t\\n\\v\\f\\r\\0$", "\t\n\u{b}\u{c}\r\0"));
        assert!(matches("^\\cC\\cc$", "\u{3}\u{3}"));
        assert!(matches("^\\x41\\u0042\\u{43}$", "ABC"));
        assert!(matches("^\\uD83D\\uDE00$", "😀"));
        assert!(matches("^\\u{1F600}$", "😀"));
        assert!(matches(
            "^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$",
            "^$\\.*+?()[]{}|/"
        ));
        assert!(matches("^\\@\\:$", "@:"));
        assert!(!matches("\\uD800", "\u{FFFD}"));
    }

    #[test]
    fn unicode_properties() {
        assert!(matches("\\p{Letter}cole", "l'école"));
        assert!(!matches("\\p{Letter}cole", "L'ÉCOLE"));
        assert!(matches("^\\p{L}+$", "Ωmega"));
        assert!(matches("^\\p{General_Category=Letter}+$", "abc"));
        assert!(matches("^\\p{gc=Lu}$", "Ä"));
        assert!(!matches("^\\p{Lu}$", "ä"));
        assert!(matches("^\\p{Ll}$", "ä"));
        assert!(matches("^\\p{digit}+$", "৪২"));
        assert!(matches("^\\p{Nd}+$", "42"));
        assert!(!matches("^\\p{Nd}$", "½"));
        assert!(matches("^\\p{N}$", "½"));
        assert!(matches("^\\P{L}$", "1"));
        assert!(matches("^\\p{Zs}$", "\u{2003}"));
        assert!(matches("^\\p{ASCII}+$", "abc"));
        assert!(!matches("^\\p{ASCII}$", "é"));
        assert!(matches("^\\p{Any}$", "\n"));
        assert!(rejects("\\p{Script=Greek}").contains("script"));
        assert!(rejects("\\p{Emoji_Presentation}").contains("unsupported Unicode property"));
        assert!(rejects("\\p{L").contains("missing '}'"));
        assert!(rejects("\\pL").contains("\\p must be followed"));
    }

    #[test]
    fn non_linear_features_are_refused_with_a_reason() {
        assert!(rejects("(?=a)").contains("lookahead"));
        assert!(rejects("(?!a)").contains("lookahead"));
        assert!(rejects("(?<=a)b").contains("lookbehind"));
        assert!(rejects("(?<!a)b").contains("lookbehind"));
        assert!(rejects("(a)\\1").contains("backreferences"));
        assert!(rejects("(?<x>a)\\k<x>").contains("backreferences"));
    }

    #[test]
    fn syntax_errors_are_refused() {
        for bad in [
            "(",
            ")",
            "a)",
            "[a",
            "[z-a]",
            "a**",
            "*a",
            "+",
            "?",
            "a{2,1}",
            "{",
            "}",
            "]",
            "a{",
            "a{1",
            "a{,2}",
            "^*",
            "\\b+",
            "\\",
            "[\\d-z]",
            "[a-\\w]",
            "\\x4",
            "\\u12",
            "\\u{110000}",
            "\\c1",
            "\\01",
            "\\a",
            "\\e",
            "(?i:a)",
            "(?<>a)",
            "(?<1a>a)",
            "[\\B]",
            "[\\1]",
        ] {
            assert!(Pattern::compile(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn sizes_are_bounded() {
        assert!(rejects("a{1000000}").contains("too large"));
        assert!(rejects("(?:(?:a{100}){100}){100}").contains("too large"));
        assert!(rejects("a{0,4294967295}").contains("too large"));
        assert!(rejects("a{99999999999999999999}").contains("too large"));
        assert!(rejects(&"a".repeat(MAX_PATTERN_CHARS + 1)).contains("longer"));
        assert!(rejects(&"(".repeat(200)).contains("nested"));
        assert!(Pattern::compile(&"a".repeat(MAX_PATTERN_PROGRAM - 1)).is_ok());
        assert!(rejects(&"a".repeat(MAX_PATTERN_PROGRAM)).contains("too large"));
        // Repeating an empty program is free, whatever the count.
        assert!(matches("^(?:){4294967295}$", ""));
        assert!(matches("^(?:a{0}){4294967295}b$", "b"));
        assert!(matches("^(?:(?:){1000}){1000}$", ""));
        assert!(matches(
            "^[a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,255}$",
            "joe@example.com"
        ));
    }

    #[test]
    fn catastrophic_patterns_run_in_linear_time() {
        let mut text = "a".repeat(100_000);
        text.push('!');
        assert!(!matches("^(a+)+$", &text));
        assert!(!matches("^(a|a)*$", &text));
        assert!(!matches("^(a*)*b$", &text));
        assert!(matches("(a+)+!", &text));
        let x = "x".repeat(30_000);
        assert!(!matches("(x+x+)+y", &x));
    }

    #[test]
    fn match_work_is_bounded_and_fails_closed() {
        // Near the size cap, every instruction is a live thread at every character: without the
        // step budget this took about a second natively for a 10,000-character text.
        let wide = format!("^(?:a|a){{0,{}}}$", MAX_PATTERN_PROGRAM / 6);
        let pattern = Pattern::compile(&wide).expect("compiles");
        let long = "a".repeat(10_000);
        let started = std::time::Instant::now();
        assert!(!pattern.is_match(&long), "over budget counts as no match");
        let (_, steps) = pattern.run(&long);
        assert!(
            steps <= MAX_MATCH_STEPS + 2 * MAX_PATTERN_PROGRAM,
            "{steps} steps"
        );
        // The memo answers the same text again without running.
        assert!(!pattern.is_match(&long));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // Cheap matches are unaffected, even on long texts.
        assert!(matches("^[a-z]+$", &"q".repeat(200_000)));
        assert!(matches("b", &format!("{}b", "a".repeat(300_000))));
        assert!(pattern.is_match("aaa"));
    }

    #[test]
    fn never_panics_on_odd_input() {
        for pattern in [
            "\\u{",
            "\\u{}",
            "\\uD83D\\u",
            "[\\",
            "[\\u",
            "(?<",
            "(?<a",
            "(?",
            "\\p{",
            "\\k",
            "[]]",
            "\\c",
            "a{1,",
            "[^",
            "\u{0}",
            "é{2}",
            "(?:)",
            "()",
            "(|)*",
            "$^",
            "\\b\\B",
        ] {
            if let Ok(p) = Pattern::compile(pattern) {
                let _ = p.is_match("some text é 😀");
                let _ = p.is_match("");
            }
        }
    }

    #[test]
    fn source_and_display() {
        let p = Pattern::compile("^a$").expect("compiles");
        assert_eq!(p.source(), "^a$");
        let e = Pattern::compile("(?=x)").expect_err("refused");
        assert_eq!(e.to_string(), e.reason);
    }
}
