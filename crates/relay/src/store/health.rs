//! Whether the database answers (readiness), and the deployment's clock measured against it.

use super::clock::{measured_offset_ms, Clock, ClockReading};
use super::db::{either, Database, Either};
use super::StoreError;
use crate::time::process_now_ms;

/// How many readings of the database's clock a measurement takes (the quickest one counts).
const CLOCK_READINGS: usize = 3;

/// The database's clock in ms since the Unix epoch: `clock_timestamp()` is the time as the
/// statement runs, not when its transaction began.
const DATABASE_NOW_MS: &str =
    "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms";

/// The database's health and the deployment's clock.
#[derive(Debug, Clone)]
pub struct Health {
    pub(super) database: Database,
    pub(super) clock: Clock,
}

impl Health {
    /// Runs the cheapest query there is (`SELECT 1`): whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        either!(self.database.reader(), |pool| {
            sqlx::query("SELECT 1").execute(pool).await?;
            Ok(())
        })
    }

    /// The deployment's clock: every stored time and every "is it due?" is read from it.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Measures the clock again against the database (PostgreSQL); nothing to do when the
    /// process clock is the deployment's (SQLite, one process).
    pub async fn sync_clock(&self) -> Result<(), StoreError> {
        let Either::Postgres(pool) = self.database.reader() else {
            return Ok(());
        };
        // One connection for every reading: waiting for the pool is not part of a round trip.
        let mut connection = pool.acquire().await?;
        let mut readings = Vec::with_capacity(CLOCK_READINGS);
        for _ in 0..CLOCK_READINGS {
            let sent_ms = process_now_ms();
            let database_ms: i64 = sqlx::query_scalar(DATABASE_NOW_MS)
                .fetch_one(&mut *connection)
                .await?;
            readings.push(ClockReading {
                sent_ms,
                database_ms,
                received_ms: process_now_ms(),
            });
        }
        if let Some(offset_ms) = measured_offset_ms(&readings) {
            self.clock.set_offset_ms(offset_ms);
        }
        Ok(())
    }
}
