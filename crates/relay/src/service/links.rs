//! Answer links: each a capability for exactly one elicitation, `<public-url>/answer/#t=<token>`.
//! A token is 256 random bits (base64url, 43 characters); only its SHA-256 is stored, so the
//! database cannot hand a link out. Minted for a host (`POST …/link`), for the created webhook
//! and for a push when each is sent (so no token waits in an outbox), and redeemed by the page:
//! token to the one record, through the [`Elicitations`] the links hold, so expiry applies.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;

use crate::answer_page::AnswerPageSettings;
use crate::canonical::sha256_hex;
use crate::metrics::LinkMetrics;
use crate::record::{Actor, Record};
use crate::service::{Changed, Elicitations, Missing, ServiceError};
use crate::store::{LinkStore, NewLink, StoreError};

/// Random bytes in a token.
const TOKEN_BYTES: usize = 32;
/// A token's length: [`TOKEN_BYTES`] in base64url without padding.
pub const TOKEN_CHARS: usize = 43;
/// The most links a host may have made for one elicitation (`POST …/link`, counting those the
/// relay minted for webhooks, pushes and e-mail): each is a row, and a host needs a few.
pub const MAX_LINKS_PER_ELICITATION: i64 = 256;

/// A link just made. Its `Debug` leaves the token out, so no log line can show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Link {
    /// Its id, which the audit trail names when an answer comes through it.
    pub id: String,
    /// `<public-url>/answer/#t=<token>`: the only place the token ever is.
    pub url: String,
    /// When it stops working: when its elicitation expires (ms since the Unix epoch).
    pub expires_at: i64,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let page = self.url.split_once("#t=").map_or("", |(page, _)| page);
        f.debug_struct("Link")
            .field("id", &self.id)
            .field("url", &format!("{page}#t=<redacted>"))
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

/// A token redeemed: the link's id and its elicitation as it is now.
#[derive(Debug, Clone, PartialEq)]
pub struct Redeemed {
    /// The link's id.
    pub link_id: String,
    /// Its one elicitation (expired first if its time is up).
    pub record: Record,
}

/// The links of one relay with the answer page on, to the elicitations of its service.
#[derive(Debug, Clone)]
pub struct Links {
    elicitations: Elicitations,
    store: LinkStore,
    page: Arc<AnswerPageSettings>,
    counts: LinkMetrics,
}

impl Links {
    /// Links to `elicitations`, kept in `store` (timed by the elicitations' clock), pointing at
    /// `page`'s public URL, counted in `counts`.
    pub fn new(
        elicitations: Elicitations,
        store: LinkStore,
        page: Arc<AnswerPageSettings>,
        counts: LinkMetrics,
    ) -> Links {
        Links {
            elicitations,
            store,
            page,
            counts,
        }
    }

    /// The page's settings.
    pub fn page(&self) -> &AnswerPageSettings {
        &self.page
    }

    /// A new link to the elicitation `elicitation_id` (which must exist), ending with it at
    /// `expires_at`. Every call makes another; each works until the elicitation is over.
    pub async fn mint(&self, elicitation_id: &str, expires_at: i64) -> Result<Link, StoreError> {
        let no_randomness =
            |error: getrandom::Error| StoreError(format!("no randomness for a link: {error}"));
        let mut secret = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut secret).map_err(no_randomness)?;
        let token = URL_SAFE_NO_PAD.encode(secret);
        let id = koder_elicitation_relay_protocol::random_id().map_err(no_randomness)?;
        self.store
            .insert(&NewLink {
                id: id.clone(),
                elicitation_id: elicitation_id.to_string(),
                token_hash: token_hash(&token),
                created_at: self.elicitations.now_ms(),
            })
            .await?;
        self.counts.count("minted");
        Ok(Link {
            id,
            url: self.page.link_url(&token),
            expires_at,
        })
    }

    /// A new link for a host to the elicitation `elicitation_id`, as [`mint`](Self::mint);
    /// a conflict once it has [`MAX_LINKS_PER_ELICITATION`].
    pub async fn mint_for_host(&self, elicitation_id: &str) -> Result<Link, ServiceError> {
        let record = self.elicitations.get(elicitation_id).await?;
        let record = record.ok_or(ServiceError::NotFound(Missing::Elicitation))?;
        if self.store.count_for(&record.id).await? >= MAX_LINKS_PER_ELICITATION {
            return Err(ServiceError::Conflict(format!(
                "this elicitation has {MAX_LINKS_PER_ELICITATION} links, the most it may have"
            )));
        }
        Ok(self.mint(&record.id, record.expires_at).await?)
    }

    /// The link `token` names and its one elicitation as it is now (expired first if its time
    /// is up); [`Missing::Link`] for a malformed, unknown or forged token, and for a link whose
    /// elicitation retention deleted. A malformed token is refused without a database read.
    pub async fn redeem(&self, token: &str) -> Result<Redeemed, ServiceError> {
        let link = if is_well_formed_token(token) {
            self.store.find(&token_hash(token)).await?
        } else {
            None
        };
        let record = match &link {
            Some(link) => self.elicitations.get(&link.elicitation_id).await?,
            None => None,
        };
        let redeemed = link.zip(record).map(|(link, record)| Redeemed {
            link_id: link.id,
            record,
        });
        self.counts.count(match redeemed {
            Some(_) => "redeemed",
            None => "unknown",
        });
        redeemed.ok_or(ServiceError::NotFound(Missing::Link))
    }

    /// Settles `redeemed`'s elicitation with `result` (checked already), journalled as made by
    /// the link.
    pub async fn answer(
        &self,
        redeemed: Redeemed,
        result: &Value,
    ) -> Result<Changed, ServiceError> {
        let link = Actor::Link {
            id: redeemed.link_id,
        };
        let changed = self
            .elicitations
            .answer(redeemed.record, result, &link)
            .await?;
        if let Changed::ByThisCall(_) = changed {
            self.counts.count("answered");
        }
        Ok(changed)
    }
}

/// What is stored of a token: its SHA-256, hex.
fn token_hash(token: &str) -> String {
    sha256_hex(token.as_bytes())
}

/// Whether a token could be one of ours: [`TOKEN_CHARS`] characters of the base64url alphabet.
pub fn is_well_formed_token(token: &str) -> bool {
    token.len() == TOKEN_CHARS
        && token
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_43_base64url_characters() {
        let token = URL_SAFE_NO_PAD.encode([0xffu8; TOKEN_BYTES]);
        assert_eq!(token.len(), TOKEN_CHARS);
        assert!(is_well_formed_token(&token));
        for bad in [
            String::new(),
            "a".repeat(42),
            "a".repeat(44),
            format!("{}=", "a".repeat(42)),
            format!("{}+", "a".repeat(42)),
            format!("{}é", "a".repeat(41)),
        ] {
            assert!(!is_well_formed_token(&bad), "{bad}");
        }
        assert_eq!(token_hash("abc").len(), 64);
    }

    #[test]
    fn a_link_never_prints_its_token() {
        let link = Link {
            id: "0123".into(),
            url: "https://relay.example.com/answer/#t=SECRETTOKEN".into(),
            expires_at: 5,
        };
        let printed = format!("{link:?}");
        assert!(!printed.contains("SECRETTOKEN"), "{printed}");
        assert!(
            printed.contains("https://relay.example.com/answer/#t=<redacted>"),
            "{printed}"
        );
    }
}
