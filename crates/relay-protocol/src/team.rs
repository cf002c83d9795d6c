//! A question for a team: who is in its audience (`audience` in a create body, and each
//! `escalate` stage's), and who answered it (`answeredBy`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::create::InvalidBody;

/// At most this many `users` in one audience.
pub const MAX_AUDIENCE_USERS: usize = 100;
/// At most this many `groups` in one audience.
pub const MAX_AUDIENCE_GROUPS: usize = 20;
/// The longest user id or group name in an audience.
pub const MAX_MEMBER_CHARS: usize = 128;

/// `audience: { users?, groups? }`: the people (by their token's `sub`) and the groups (by
/// their token's groups claim) who may answer, inside the scope's workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Members {
    /// The people, by `sub`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<String>,
    /// The groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
}

impl Members {
    /// Reads the audience at `path` (`audience`, `escalate[0].audience`, …): at least one
    /// non-empty list, each within its limit, each entry 1 to [`MAX_MEMBER_CHARS`] characters;
    /// repeated entries count once.
    pub fn parse(value: Value, path: &str) -> Result<Members, InvalidBody> {
        let Value::Object(mut members) = value else {
            return Err(InvalidBody(format!(
                "{path} must be an object {{users?, groups?}}"
            )));
        };
        let users = names(members.remove("users"), path, "users", MAX_AUDIENCE_USERS)?;
        let groups = names(
            members.remove("groups"),
            path,
            "groups",
            MAX_AUDIENCE_GROUPS,
        )?;
        if users.is_empty() && groups.is_empty() {
            return Err(InvalidBody(format!(
                "{path} must name at least one of users or groups"
            )));
        }
        Ok(Members { users, groups })
    }

    /// Whether the person with `sub` and token `groups` is named here.
    pub fn names(&self, sub: &str, groups: &[String]) -> bool {
        self.users.iter().any(|user| user == sub)
            || self.groups.iter().any(|group| groups.contains(group))
    }
}

/// One list of an audience: absent or null reads as empty.
fn names(
    value: Option<Value>,
    path: &str,
    list: &str,
    max: usize,
) -> Result<Vec<String>, InvalidBody> {
    let entries = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(entries)) if entries.len() <= max => entries,
        Some(_) => {
            return Err(InvalidBody(format!(
                "{path}.{list} must be a list of at most {max} names"
            )))
        }
    };
    let mut names: Vec<String> = Vec::with_capacity(entries.len());
    for entry in entries {
        match entry {
            Value::String(name) if !name.is_empty() && name.chars().count() <= MAX_MEMBER_CHARS => {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            _ => {
                return Err(InvalidBody(format!(
                    "{path}.{list} entries must be strings of 1 to {MAX_MEMBER_CHARS} characters"
                )))
            }
        }
    }
    Ok(names)
}

/// Who settled a question: a person (their token's `sub` and `name` claim) or whoever held an
/// answer link (its id, and the address the relay mailed it to, when it did).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AnsweredBy {
    /// A person, by their verified token.
    #[serde(rename_all = "camelCase")]
    Person {
        /// The token's `sub`.
        user_id: String,
        /// The token's `name` claim, when it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Whoever held an answer link.
    Link {
        /// The link's id (as the audit trail records it).
        link: String,
        /// The address the relay mailed the link to, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        email: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_audience_needs_a_name_and_keeps_its_limits() {
        let read = |value: Value| Members::parse(value, "audience");
        assert_eq!(
            read(json!({"users": ["ana", "ana"], "groups": ["ops"]})).unwrap(),
            Members {
                users: vec!["ana".into()],
                groups: vec!["ops".into()]
            }
        );
        for bad in [
            json!({}),
            json!({"users": [], "groups": null}),
            json!({"users": [""]}),
            json!({"users": ["x".repeat(129)]}),
            json!({"groups": vec!["g"; 21]}),
            json!({"users": (0..101).map(|n| n.to_string()).collect::<Vec<_>>()}),
            json!({"users": [7]}),
            json!("ana"),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        assert!(read(json!({"users": vec!["u"; 100], "groups": vec!["g"; 20]})).is_ok());
    }

    #[test]
    fn answered_by_reads_and_writes_both_shapes() {
        let person = AnsweredBy::Person {
            user_id: "ana".into(),
            name: Some("Ana".into()),
        };
        assert_eq!(
            serde_json::to_value(&person).unwrap(),
            json!({"userId": "ana", "name": "Ana"})
        );
        let link: AnsweredBy = serde_json::from_value(json!({"link": "l1"})).unwrap();
        assert_eq!(
            link,
            AnsweredBy::Link {
                link: "l1".into(),
                email: None
            }
        );
    }
}
