//! Who made a change, and the one call every change makes inside its transaction
//! ([`append_sqlite`] / [`append_postgres`]): whatever must be written with the change, and
//! only with it, is written there.

use sqlx::{PgConnection, SqliteConnection};

use crate::events::Event;

/// Who made a change: the host (service token), a person (their verified token's `sub`), or
/// the relay itself (expiry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A host, with the service token.
    Host,
    /// A person, by the `sub` of their verified token.
    Person {
        /// The token's `sub`.
        sub: String,
    },
    /// The relay (an elicitation expired).
    Relay,
}

impl Actor {
    /// As the journal names it: `host`, `person:<sub>` or `relay`.
    pub fn name(&self) -> String {
        match self {
            Actor::Host => "host".to_string(),
            Actor::Person { sub } => format!("person:{sub}"),
            Actor::Relay => "relay".to_string(),
        }
    }
}

/// Records `event`, made by `actor` at `at_ms`, in the SQLite transaction that made it.
pub(super) async fn append_sqlite(
    _transaction: &mut SqliteConnection,
    _event: &Event,
    _actor: &Actor,
    _at_ms: i64,
) -> Result<(), sqlx::Error> {
    Ok(())
}

/// Records `event`, made by `actor` at `at_ms`, in the PostgreSQL transaction that made it.
pub(super) async fn append_postgres(
    _transaction: &mut PgConnection,
    _event: &Event,
    _actor: &Actor,
    _at_ms: i64,
) -> Result<(), sqlx::Error> {
    Ok(())
}
