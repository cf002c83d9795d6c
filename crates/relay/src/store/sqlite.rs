//! SQLite: one file in WAL mode, a few readers beside one writer connection, and the group
//! committer that makes every change through that writer. SQLite takes one writer at a time
//! anyway; queued here, writers wait their turn in order, where writers on several connections
//! would meet the write lock and poll for it in the busy handler's sleeps. The committer takes
//! every change queued when it is free and commits them in one transaction (one WAL commit for
//! many changes); each runs in its own savepoint, so each still gets its own result.

use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Connection as _;
use tokio::sync::{mpsc, oneshot};

use super::changes::{apply, Applied, Change, ChangeContext};
use super::db::{Database, Either};
use super::migrations::migrate_sqlite;
use super::StoreError;

/// A busy connection waits this long for SQLite's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// A few readers alongside the one writer WAL allows.
const READERS: u32 = 4;
/// The most changes one group commit takes (the rest wait for the next).
const MAX_GROUP: usize = 256;

/// A batch is one transaction that takes SQLite's write lock as it begins (a deferred one that
/// reads first cannot always upgrade to write, and fails instead of waiting).
const BEGIN_CHANGE: &str = "BEGIN IMMEDIATE";

/// Opens (creating when missing) the database at `url` (`sqlite://PATH` or `sqlite::memory:`),
/// switches it to WAL and migrates it to the newest schema this binary knows (refusing a newer
/// one).
pub(super) async fn open(url: &str) -> Result<Database, StoreError> {
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(BUSY_TIMEOUT);
    // Each connection to `:memory:` is its own empty database: keep exactly one, forever.
    let in_memory = url.contains(":memory:") || url.contains("mode=memory");
    let one_forever = SqlitePoolOptions::new()
        .max_connections(1)
        .min_connections(1)
        .idle_timeout(None)
        .max_lifetime(None);
    let writer = one_forever.connect_with(options.clone()).await?;
    migrate_sqlite(&mut *writer.acquire().await?).await?;
    let readers = if in_memory {
        writer.clone()
    } else {
        SqlitePoolOptions::new()
            .max_connections(READERS)
            .connect_with(options)
            .await?
    };
    Ok(Database::Sqlite { readers, writer })
}

/// A change waiting for the writer, and where its result goes.
type Queued = (Change, oneshot::Sender<Result<Applied, StoreError>>);

/// The queue to the group committer; its task ends when the last handle is dropped.
#[derive(Debug, Clone)]
pub(super) struct GroupCommit {
    queue: mpsc::UnboundedSender<Queued>,
}

impl GroupCommit {
    /// Starts the committer on `writer`.
    pub(super) fn start(writer: SqlitePool, context: ChangeContext) -> GroupCommit {
        let (queue, queued) = mpsc::unbounded_channel();
        tokio::spawn(commit_groups(writer, context, queued));
        GroupCommit { queue }
    }

    /// Queues `change` and waits for the commit of its group.
    pub(super) async fn commit(&self, change: Change) -> Result<Applied, StoreError> {
        let stopped = || StoreError("the SQLite writer stopped".into());
        let (reply, result) = oneshot::channel();
        self.queue.send((change, reply)).map_err(|_| stopped())?;
        result.await.map_err(|_| stopped())?
    }
}

/// Commits what is queued, a group at a time, until every handle is gone.
async fn commit_groups(
    writer: SqlitePool,
    context: ChangeContext,
    mut queued: mpsc::UnboundedReceiver<Queued>,
) {
    let mut group = Vec::new();
    while queued.recv_many(&mut group, MAX_GROUP).await > 0 {
        let (changes, replies): (Vec<Change>, Vec<_>) = group.drain(..).unzip();
        let results = match commit_group(&writer, &context, &changes).await {
            Ok(results) => results,
            // Nothing of the group was kept: each change gets the error.
            Err(error) => changes.iter().map(|_| Err(error.clone())).collect(),
        };
        context.recorded.notify_one();
        for (reply, result) in replies.into_iter().zip(results) {
            // A caller that stopped waiting has its change made all the same.
            let _ = reply.send(result);
        }
    }
}

/// One transaction for `changes`, each in its own savepoint: a change that fails is rolled back
/// alone, and the others are kept.
async fn commit_group(
    writer: &SqlitePool,
    context: &ChangeContext,
    changes: &[Change],
) -> Result<Vec<Result<Applied, StoreError>>, StoreError> {
    let mut transaction = writer.begin_with(BEGIN_CHANGE).await?;
    let mut results = Vec::with_capacity(changes.len());
    for change in changes {
        let mut savepoint = transaction.begin().await?;
        let applied = apply(Either::Sqlite(&mut *savepoint), change, context).await;
        if applied.is_ok() {
            savepoint.commit().await?;
        } else {
            savepoint.rollback().await?;
        }
        results.push(applied);
    }
    transaction.commit().await?;
    Ok(results)
}
