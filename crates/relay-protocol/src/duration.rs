//! Durations as hosts write them in a create body (`notify.remindAfter`, `escalate[].after`):
//! a whole number and a unit.

/// A duration as hosts (and the relay's flags) write it: a whole number above 0 and a unit,
/// `ms`, `s`, `m`, `h` or `d` (`"30s"`, `"10m"`), in ms. The unit is required: a bare `30`
/// could mean seconds or days.
pub fn parse_duration_ms(text: &str) -> Option<i64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: i64 = number.parse().ok()?;
    let unit_ms = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    number.checked_mul(unit_ms).filter(|ms| *ms > 0)
}

/// A duration in ms as it is written back: whole seconds, else ms.
pub fn duration_text(ms: i64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// An optional duration on the wire, written as whole seconds or ms (read through the
/// body's own check).
pub(crate) fn optional_text<S: serde::Serializer>(
    ms: &Option<i64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => serializer.serialize_str(&duration_text(*ms)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_a_number_and_a_unit() {
        assert_eq!(parse_duration_ms("30s"), Some(30_000));
        assert_eq!(parse_duration_ms("10m"), Some(600_000));
        assert_eq!(parse_duration_ms("2h"), Some(7_200_000));
        assert_eq!(parse_duration_ms("250ms"), Some(250));
        for bad in [
            "",
            "10",
            "m",
            "0s",
            "-1s",
            "1.5m",
            "10 m",
            "1y",
            "99999999999999999d",
        ] {
            assert_eq!(parse_duration_ms(bad), None, "{bad}");
        }
        assert_eq!(duration_text(10_000), "10s");
        assert_eq!(duration_text(1_500), "1500ms");
    }
}
