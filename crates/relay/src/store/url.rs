//! Database URLs: which dialect one names, and one without its password for messages.

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseKind {
    /// `sqlite:…`
    Sqlite,
    /// `postgres://…` or `postgresql://…`
    Postgres,
}

impl DatabaseKind {
    /// The kind of a database URL, or `None` for an unsupported scheme.
    pub fn of(url: &str) -> Option<DatabaseKind> {
        if url.starts_with("sqlite:") {
            Some(DatabaseKind::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(DatabaseKind::Postgres)
        } else {
            None
        }
    }

    /// The kind of a database URL, or why it is none, naming it (without its password) after
    /// `name` (`--database`, or `database URL`).
    pub fn named(url: &str, name: &str) -> Result<DatabaseKind, String> {
        DatabaseKind::of(url).ok_or_else(|| {
            format!(
                "{name} {:?} must start with sqlite: or postgres://",
                redact_database(url)
            )
        })
    }
}

/// A database URL without its password, for messages.
pub fn redact_database(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = url.get(scheme_end + 3..at).unwrap_or_default();
            match credentials.split_once(':') {
                Some((user, _)) => format!(
                    "{}{user}:***{}",
                    url.get(..scheme_end + 3).unwrap_or_default(),
                    url.get(at..).unwrap_or_default()
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}
