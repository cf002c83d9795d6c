//! `escalate` in a create body: up to three stages, each widening the audience when its time
//! comes and the question is still open.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::create::{InvalidBody, Notify};
use crate::duration::parse_duration_ms;
use crate::team::Members;

/// At most this many stages.
pub const MAX_ESCALATE_STAGES: usize = 3;

/// One stage: after `after_ms` from the create, `audience` joins and `notify` is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EscalateStage {
    /// When, in ms after the create.
    #[serde(rename = "after", with = "duration_text")]
    pub after_ms: i64,
    /// Who joins.
    pub audience: Members,
    /// Who else is told, and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notify: Option<Notify>,
}

/// Reads `escalate` for a question of `timeout_ms`: a list of at most [`MAX_ESCALATE_STAGES`]
/// stages, each `after` strictly later than the one before and shorter than the timeout.
pub fn parse_escalate(value: Value, timeout_ms: i64) -> Result<Vec<EscalateStage>, InvalidBody> {
    let stages = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(stages) if stages.len() <= MAX_ESCALATE_STAGES => stages,
        _ => {
            return Err(InvalidBody(format!(
                "escalate must be a list of at most {MAX_ESCALATE_STAGES} stages"
            )))
        }
    };
    let mut parsed: Vec<EscalateStage> = Vec::with_capacity(stages.len());
    for (index, stage) in stages.into_iter().enumerate() {
        let path = format!("escalate[{index}]");
        let Value::Object(mut stage) = stage else {
            return Err(InvalidBody(format!(
                "{path} must be an object {{after, audience, notify?}}"
            )));
        };
        let after_ms = stage
            .remove("after")
            .as_ref()
            .and_then(Value::as_str)
            .and_then(parse_duration_ms)
            .ok_or_else(|| {
                InvalidBody(format!(
                    "{path}.after must be a duration like \"30s\", \"10m\" or \"2h\""
                ))
            })?;
        if parsed
            .last()
            .is_some_and(|before| before.after_ms >= after_ms)
        {
            return Err(InvalidBody(format!(
                "{path}.after must be later than the stage before it"
            )));
        }
        if after_ms >= timeout_ms {
            return Err(InvalidBody(format!(
                "{path}.after must be shorter than the timeout ({timeout_ms} ms)"
            )));
        }
        let audience = Members::parse(
            stage.remove("audience").unwrap_or(Value::Null),
            &format!("{path}.audience"),
        )?;
        let notify = match stage.remove("notify") {
            None | Some(Value::Null) => None,
            Some(notify) => Some(Notify::try_from(notify)?),
        };
        parsed.push(EscalateStage {
            after_ms,
            audience,
            notify,
        });
    }
    Ok(parsed)
}

/// `after` on the wire: a duration text read, whole seconds or ms written.
mod duration_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::duration::{duration_text, parse_duration_ms};

    pub fn serialize<S: Serializer>(ms: &i64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&duration_text(*ms))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
        let text = String::deserialize(deserializer)?;
        parse_duration_ms(&text).ok_or_else(|| serde::de::Error::custom("a duration like \"10m\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stages_are_few_increasing_and_inside_the_timeout() {
        let stage = |after: &str| json!({"after": after, "audience": {"groups": ["ops"]}});
        let stages = parse_escalate(json!([stage("10s"), stage("1m")]), 300_000).unwrap();
        assert_eq!(
            stages.iter().map(|s| s.after_ms).collect::<Vec<_>>(),
            [10_000, 60_000]
        );
        assert!(parse_escalate(json!([stage("1m"), stage("1m")]), 300_000).is_err());
        assert!(parse_escalate(json!([stage("5m")]), 300_000).is_err());
        assert!(parse_escalate(
            json!([stage("1s"), stage("2s"), stage("3s"), stage("4s")]),
            300_000
        )
        .is_err());
        assert!(parse_escalate(json!([{"after": "1s"}]), 300_000).is_err());
        assert!(parse_escalate(json!({}), 300_000).is_err());
        let mailed = parse_escalate(
            json!([{"after": "1s", "audience": {"users": ["bo"]}, "notify": {"email": "bo@example.com"}}]),
            300_000,
        )
        .unwrap();
        assert_eq!(mailed[0].notify, Some(Notify::email("bo@example.com")));
        let written = serde_json::to_value(&mailed[0]).unwrap();
        assert_eq!(written["after"], "1s");
        assert_eq!(
            serde_json::from_value::<EscalateStage>(written).unwrap(),
            mailed[0]
        );
    }
}
