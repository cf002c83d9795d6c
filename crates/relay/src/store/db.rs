//! The one database a deployment has, either dialect, and the [`either!`] macro that runs the
//! same code (one SQL text, one binding) against whichever it is: the code is written once and
//! compiled once per dialect.

use sqlx::{PgConnection, PgPool, QueryBuilder, SqliteConnection, SqlitePool};

/// One of two things, by dialect.
#[derive(Debug)]
pub enum Either<S, P> {
    /// On SQLite.
    Sqlite(S),
    /// On PostgreSQL.
    Postgres(P),
}

/// A pool to run a statement on.
pub type Pool<'a> = Either<&'a SqlitePool, &'a PgPool>;

/// A connection inside a transaction.
pub type Connection<'a> = Either<&'a mut SqliteConnection, &'a mut PgConnection>;

/// The database: on SQLite a few readers beside the one writer (the same pool in memory); on
/// PostgreSQL one pool, shared by replicas.
#[derive(Debug, Clone)]
pub enum Database {
    /// One SQLite file.
    Sqlite {
        /// Reads (WAL lets them run beside the writer).
        readers: SqlitePool,
        /// Every write: one connection.
        writer: SqlitePool,
    },
    /// PostgreSQL.
    Postgres(PgPool),
}

impl Database {
    /// Where reads go.
    pub fn reader(&self) -> Pool<'_> {
        match self {
            Database::Sqlite { readers, .. } => Either::Sqlite(readers),
            Database::Postgres(pool) => Either::Postgres(pool),
        }
    }

    /// Where writes go.
    pub fn writer(&self) -> Pool<'_> {
        match self {
            Database::Sqlite { writer, .. } => Either::Sqlite(writer),
            Database::Postgres(pool) => Either::Postgres(pool),
        }
    }
}

/// Pushes `(v1, v2, …)` onto `query`, each value bound: the list of an `IN`.
pub(crate) fn push_list<DB, T>(query: &mut QueryBuilder<DB>, values: impl IntoIterator<Item = T>)
where
    DB: sqlx::Database,
    T: for<'t> sqlx::Encode<'t, DB> + sqlx::Type<DB>,
{
    query.push("(");
    let mut list = query.separated(", ");
    for value in values {
        list.push_bind(value);
    }
    list.push_unseparated(")");
}

/// A statement whose text differs by dialect (NOTIFY, `SKIP LOCKED`).
#[derive(Debug, Clone, Copy)]
pub struct Dialects {
    /// The SQLite text.
    pub sqlite: &'static str,
    /// The PostgreSQL text.
    pub postgres: &'static str,
}

/// `either!(target, |db| body)`: `body` runs with `db` bound to the SQLite or the PostgreSQL
/// side of `target` (an [`Either`]); `either!(target, |db, dialect| body)` also binds `dialect`,
/// a function picking the text of a [`Dialects`].
macro_rules! either {
    ($target:expr, |$db:ident| $body:expr) => {
        match $target {
            $crate::store::db::Either::Sqlite($db) => $body,
            $crate::store::db::Either::Postgres($db) => $body,
        }
    };
    ($target:expr, |$db:ident, $dialect:ident| $body:expr) => {
        match $target {
            $crate::store::db::Either::Sqlite($db) => {
                let $dialect = |texts: $crate::store::db::Dialects| texts.sqlite;
                $body
            }
            $crate::store::db::Either::Postgres($db) => {
                let $dialect = |texts: $crate::store::db::Dialects| texts.postgres;
                $body
            }
        }
    };
}

pub(crate) use either;
