//! What a change writes beside itself (its audit record, each channel's rows): inserts
//! that select from `changed`, the row the change made, so they write nothing when the change
//! changed nothing. The journal and each channel's queue write their own; `changes`
//! runs them after the change or joins them to its statement.

use std::borrow::Cow;

/// A value bound to a statement.
#[derive(Debug, Clone)]
pub enum Arg {
    /// A text.
    Text(String),
    /// A text or NULL.
    OptionalText(Option<String>),
    /// A number.
    Int(i64),
}

/// An insert a change writes beside itself, selecting from `changed`: the row the change made.
/// `alone` runs after the change, where `changed` is one row of nothing; `joined` is a CTE of
/// the change's own statement, over its `RETURNING`. Written with [`beside!`] when it is fixed,
/// with [`BesideText::around`] when part of it is made for the change (a filter).
#[derive(Debug, Clone)]
pub struct BesideText {
    pub(crate) alone: Cow<'static, str>,
    pub(crate) joined: Cow<'static, str>,
}

impl BesideText {
    /// The text `before`, `changed`, `after`, made now.
    pub fn around(before: &str, after: &str) -> BesideText {
        BesideText {
            alone: Cow::Owned(format!("{before}{ALONE}{after}")),
            joined: Cow::Owned(format!("{before}changed{after}")),
        }
    }
}

/// What `changed` is when a beside runs after its change: one row of nothing.
pub const ALONE: &str = "(SELECT 1) AS changed";

/// `beside!("INSERT … SELECT … FROM ", " WHERE …")`: the text on both sides of `changed`.
macro_rules! beside {
    ($before:literal, $after:literal) => {
        $crate::store::beside::BesideText {
            alone: std::borrow::Cow::Borrowed(concat!($before, "(SELECT 1) AS changed", $after)),
            joined: std::borrow::Cow::Borrowed(concat!($before, "changed", $after)),
        }
    };
}
pub(crate) use beside;

/// One insert beside a change, with its values.
#[derive(Debug, Clone)]
pub struct Beside {
    pub(crate) text: BesideText,
    pub(crate) args: Vec<Arg>,
}

/// `query` with `args` bound in order.
pub(super) fn bound<'q, DB>(
    mut query: sqlx::query::Query<'q, DB, DB::Arguments>,
    args: impl IntoIterator<Item = Arg>,
) -> sqlx::query::Query<'q, DB, DB::Arguments>
where
    DB: sqlx::Database,
    String: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    Option<String>: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
    i64: for<'e> sqlx::Encode<'e, DB> + sqlx::Type<DB>,
{
    for arg in args {
        query = match arg {
            Arg::Text(text) => query.bind(text),
            Arg::OptionalText(text) => query.bind(text),
            Arg::Int(number) => query.bind(number),
        };
    }
    query
}
