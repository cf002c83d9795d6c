//! Format assertions for the string formats the form renders: `email`, `uri`, `date`,
//! `date-time`. Any other format name is an annotation only and always passes.
//!
//! Each check follows the RFC grammar directly on ASCII bytes (no regular expressions), so
//! the cost is linear in the text and non-ASCII input is rejected where the RFCs are ASCII-only.

/// Whether `format` is one of the formats this module asserts.
pub fn is_known(format: &str) -> bool {
    matches!(format, "email" | "uri" | "date" | "date-time")
}

/// Whether `text` is valid for `format`; unknown formats are always valid.
pub fn is_valid(format: &str, text: &str) -> bool {
    match format {
        "email" => is_email(text),
        "uri" => is_uri(text),
        "date" => is_full_date(text),
        "date-time" => is_date_time(text),
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------
// email: RFC 5321 `Mailbox` (the SMTP grammar, as the JSON-Schema-Test-Suite expects)

/// RFC 5321 §4.1.2 `Mailbox = Local-part "@" ( Domain / address-literal )`.
fn is_email(text: &str) -> bool {
    // The local part may be a quoted string containing '@', so split at the last one.
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    // RFC 5321 §4.5.3.1: local part at most 64 octets, domain at most 255.
    local.len() <= 64 && domain.len() <= 255 && is_local_part(local) && is_mail_domain(domain)
}

/// `Local-part = Dot-string / Quoted-string`.
fn is_local_part(local: &str) -> bool {
    if local.starts_with('"') {
        return is_quoted_string(local);
    }
    // Dot-string = Atom *("." Atom): no empty atom, so no leading, trailing or double dot.
    !local.is_empty()
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
}

/// RFC 5322 `atext`.
fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b)
}

/// `Quoted-string = DQUOTE *QcontentSMTP DQUOTE`, where `QcontentSMTP = qtextSMTP / quoted-pairSMTP`.
fn is_quoted_string(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() < 2 || bytes.last() != Some(&b'"') {
        return false;
    }
    let inner = bytes.get(1..bytes.len() - 1).unwrap_or_default();
    let mut iter = inner.iter();
    while let Some(&b) = iter.next() {
        match b {
            // quoted-pairSMTP = %d92 %d32-126
            b'\\' => match iter.next() {
                Some(&next) if (32..=126).contains(&next) => {}
                _ => return false,
            },
            // qtextSMTP = %d32-33 / %d35-91 / %d93-126
            b'"' => return false,
            32..=126 => {}
            _ => return false,
        }
    }
    true
}

/// `Domain / address-literal`.
fn is_mail_domain(domain: &str) -> bool {
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_strict_ipv4(literal),
        },
        None => is_hostname(domain),
    }
}

/// RFC 5321 `Domain = sub-domain *("." sub-domain)`, `sub-domain = Let-dig [Ldh-str]`, with
/// the DNS limits of 63 octets per label and 253 for the name.
fn is_hostname(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= 253
        && domain.split('.').all(|label| {
            let bytes = label.as_bytes();
            !bytes.is_empty()
                && bytes.len() <= 63
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
                && bytes.first() != Some(&b'-')
                && bytes.last() != Some(&b'-')
        })
}

// The two address checks below accept exactly what `std::net`'s `Ipv4Addr`/`Ipv6Addr` parsers
// accept (a test compares them), without the kilobytes those parsers add to the wasm.

/// Dotted-decimal IPv4: four decimal octets of at most 255, with no leading zeros.
fn is_strict_ipv4(s: &str) -> bool {
    let mut octets = 0;
    s.split('.').all(|octet| {
        octets += 1;
        let bytes = octet.as_bytes();
        (1..=3).contains(&bytes.len())
            && bytes.iter().all(u8::is_ascii_digit)
            && !(bytes.len() > 1 && bytes.first() == Some(&b'0'))
            && bytes
                .iter()
                .fold(0u32, |value, digit| value * 10 + u32::from(digit - b'0'))
                <= 255
    }) && octets == 4
}

/// RFC 4291 text form, including an embedded dotted IPv4 tail; no zone identifier.
fn is_ipv6(s: &str) -> bool {
    let halves =
        crate::strings::find(s, "::").and_then(|at| Some((s.get(..at)?, s.get(at + 2..)?)));
    match halves {
        // `::` stands for at least one zero group; the IPv4 tail may only end the address.
        Some((head, tail)) => matches!(
            (ipv6_groups(head, false), ipv6_groups(tail, true)),
            (Some(head), Some(tail)) if head + tail <= 7
        ),
        None => ipv6_groups(s, true) == Some(8),
    }
}

/// How many 16-bit groups a `:`-separated run of 1–4 hex digit groups makes (a dotted IPv4 as the
/// last one, where allowed, counts two; an empty run, beside a `::`, none); `None` when a group is
/// malformed.
fn ipv6_groups(run: &str, ipv4_last: bool) -> Option<usize> {
    if run.is_empty() {
        return Some(0);
    }
    let mut groups = run.split(':').peekable();
    let mut count = 0;
    while let Some(group) = groups.next() {
        let last = groups.peek().is_none();
        if (1..=4).contains(&group.len()) && group.bytes().all(|b| b.is_ascii_hexdigit()) {
            count += 1;
        } else if last && ipv4_last && is_strict_ipv4(group) {
            count += 2;
        } else {
            return None;
        }
    }
    Some(count)
}

// ---------------------------------------------------------------------------------------------
// uri: RFC 3986 `URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]`

/// An absolute URI (a relative reference is not a `uri`).
fn is_uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    if !is_scheme(scheme) {
        return false;
    }
    let (rest, fragment) = match rest.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (rest, None),
    };
    let (hier, query) = match rest.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (rest, None),
    };
    let query_ok = query.is_none_or(|q| all_pchar_or(q, b"/?"));
    let fragment_ok = fragment.is_none_or(|f| all_pchar_or(f, b"/?"));
    query_ok && fragment_ok && is_hier_part(hier)
}

/// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
fn is_scheme(scheme: &str) -> bool {
    let mut bytes = scheme.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// `hier-part = "//" authority path-abempty / path-absolute / path-rootless / path-empty`.
fn is_hier_part(hier: &str) -> bool {
    match hier.strip_prefix("//") {
        Some(after) => {
            let (authority, path) = after
                .find('/')
                .and_then(|slash| after.split_at_checked(slash))
                .unwrap_or((after, ""));
            is_authority(authority) && all_pchar_or(path, b"/")
        }
        // path-absolute cannot start with "//" (that was the authority branch); the others
        // are segments of pchar separated by '/'.
        None => all_pchar_or(hier, b"/"),
    }
}

/// `authority = [ userinfo "@" ] host [ ":" port ]`.
fn is_authority(authority: &str) -> bool {
    let (userinfo, host_port) = match authority.split_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, authority),
    };
    // userinfo = *( unreserved / pct-encoded / sub-delims / ":" ); a second '@' fails here.
    if userinfo.is_some_and(|u| !all_allowed(u, b":")) {
        return false;
    }
    let (host, port) = if host_port.starts_with('[') {
        let Some(close) = host_port.find(']') else {
            return false;
        };
        let Some((literal, after)) = host_port.split_at_checked(close + 1) else {
            return false;
        };
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(port) => Some(port),
                None => return false,
            },
        };
        if !is_ip_literal(literal) {
            return false;
        }
        (None, port)
    } else {
        match host_port.split_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(host_port), None),
        }
    };
    // reg-name = *( unreserved / pct-encoded / sub-delims ); it also covers IPv4address.
    let host_ok = host.is_none_or(|h| all_allowed(h, b""));
    let port_ok = port.is_none_or(|p| p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// `IP-literal = "[" ( IPv6address / IPvFuture ) "]"`.
fn is_ip_literal(literal: &str) -> bool {
    let Some(inner) = literal.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
        return false;
    };
    // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
    if let Some(future) = inner.strip_prefix(['v', 'V']) {
        let Some((version, address)) = future.split_once('.') else {
            return false;
        };
        return !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_hexdigit())
            && !address.is_empty()
            && address
                .bytes()
                .all(|b| is_unreserved(b) || is_sub_delim(b) || b == b':');
    }
    is_ipv6(inner)
}

/// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
fn is_sub_delim(b: u8) -> bool {
    b"!$&'()*+,;=".contains(&b)
}

/// Every byte is unreserved, a sub-delim, one of `extra`, or part of a `%HH` triplet.
fn all_allowed(s: &str, extra: &[u8]) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = |at: usize| bytes.get(at).is_some_and(|h| h.is_ascii_hexdigit());
            if !(hex(i + 1) && hex(i + 2)) {
                return false;
            }
            i += 3;
        } else if is_unreserved(b) || is_sub_delim(b) || extra.contains(&b) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// `pchar = unreserved / pct-encoded / sub-delims / ":" / "@"`, plus `extra`.
fn all_pchar_or(s: &str, extra: &[u8]) -> bool {
    let mut allowed = vec![b':', b'@'];
    allowed.extend_from_slice(extra);
    all_allowed(s, &allowed)
}

// ---------------------------------------------------------------------------------------------
// date, date-time: RFC 3339 §5.6

/// Parses exactly `N` ASCII digits into a number.
fn digits<const N: usize>(bytes: &[u8]) -> Option<u32> {
    if bytes.len() != N {
        return None;
    }
    bytes.iter().try_fold(0u32, |acc, b| {
        b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0'))
    })
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Days in a month of the Gregorian calendar; 0 for a month that does not exist, so no day fits.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// `full-date = date-fullyear "-" date-month "-" date-mday`, with a real calendar.
fn is_full_date(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let field = |range: std::ops::Range<usize>| b.get(range);
    let (Some(year), Some(month), Some(day)) = (
        field(0..4).and_then(digits::<4>),
        field(5..7).and_then(digits::<2>),
        field(8..10).and_then(digits::<2>),
    ) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// `date-time = full-date "T" full-time` (`T` and `Z` case-insensitive, RFC 3339 §5.6 note).
fn is_date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (Some(date), Some(separator), Some(time)) =
        (bytes.get(..10), bytes.get(10), bytes.get(11..))
    else {
        return false;
    };
    // The slices are ASCII-checked below; `from_utf8` only fails on a split multibyte char.
    let Ok(date) = std::str::from_utf8(date) else {
        return false;
    };
    is_full_date(date) && matches!(separator, b'T' | b't') && is_full_time(time)
}

/// `full-time = partial-time time-offset`, with RFC 3339 leap-second rules: second 60 is only
/// valid at 23:59 UTC.
fn is_full_time(b: &[u8]) -> bool {
    // partial-time = time-hour ":" time-minute ":" time-second [time-secfrac]
    if b.len() < 9 || b.get(2) != Some(&b':') || b.get(5) != Some(&b':') {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) = (
        b.get(0..2).and_then(digits::<2>),
        b.get(3..5).and_then(digits::<2>),
        b.get(6..8).and_then(digits::<2>),
    ) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = b.get(8..).unwrap_or_default();
    // time-secfrac = "." 1*DIGIT
    if let Some(frac) = rest.strip_prefix(b".") {
        let len = frac.iter().take_while(|d| d.is_ascii_digit()).count();
        if len == 0 {
            return false;
        }
        rest = frac.get(len..).unwrap_or_default();
    }
    // time-offset = "Z" / time-numoffset; time-numoffset = ("+" / "-") time-hour ":" time-minute
    let offset_minutes: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits::<2>(&[*h1, *h2]), digits::<2>(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let minutes = i64::from(oh * 60 + om);
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return false,
    };
    if second == 60 {
        // Local time minus the offset gives UTC; a leap second is inserted after 23:59:59 UTC.
        let utc = (i64::from(hour * 60 + minute) - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written address checks agree with `std::net`'s parsers on every string built
    /// from a small alphabet, up to a length, plus hand-picked edge cases.
    #[test]
    fn ip_checks_match_std_net() {
        use std::net::{Ipv4Addr, Ipv6Addr};
        let mut cases: Vec<String> = [
            "",
            "::",
            ":::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            "1:2:3:4:5:6:1.2.3.4",
            "::1.2.3.4",
            "::ffff:1.2.3.4",
            "1.2.3.4",
            "1.2.3.4::",
            "::1.2.3.4:5",
            "1:2:3:4:5:6:7:1.2.3.4",
            "::1:2:3:4:5:1.2.3.4",
            "::1:2:3:4:5:6:1.2.3.4",
            "0:0:0:0:0:0:0:0",
            "00000::",
            "ABCD::ef01",
            "fe80::1%eth0",
            "1:2:3:4:5:6::1.2.3.4",
            "1:2:3:4:5::1.2.3.4",
            "::01.2.3.4",
            "::256.2.3.4",
            "0.0.0.0",
            "255.255.255.255",
            "256.1.1.1",
            "01.1.1.1",
            "1.1.1",
            "1.1.1.1.1",
            "1..1.1",
            " 1.1.1.1",
            "1.1.1.1 ",
            "+1.1.1.1",
            "1.1.1.01",
            "1.1.1.0",
            "١.1.1.1",
            "1:2:3:4:5:6:7:",
            ":1::",
        ]
        .iter()
        .map(|case| case.to_string())
        .collect();
        let alphabet = ['0', '1', 'f', ':', '.'];
        let mut layer = vec![String::new()];
        for _ in 0..7 {
            layer = layer
                .iter()
                .flat_map(|prefix| alphabet.iter().map(move |c| format!("{prefix}{c}")))
                .collect();
            cases.extend(layer.iter().cloned());
        }
        // Whole addresses: up to 9 groups, some empty (so `::` and `:::` arise), some IPv4.
        let tokens = ["1", "ffff", "1.2.3.4", ""];
        let mut runs = vec![String::new()];
        for length in 1..=9 {
            runs = runs
                .iter()
                .flat_map(|prefix| {
                    tokens.iter().map(move |token| match length {
                        1 => token.to_string(),
                        _ => format!("{prefix}:{token}"),
                    })
                })
                .collect();
            cases.extend(runs.iter().cloned());
        }
        for case in &cases {
            assert_eq!(
                is_strict_ipv4(case),
                case.parse::<Ipv4Addr>().is_ok(),
                "ipv4 {case}"
            );
            assert_eq!(
                is_ipv6(case),
                case.parse::<Ipv6Addr>().is_ok(),
                "ipv6 {case}"
            );
        }
    }

    #[test]
    fn known_formats() {
        for f in ["email", "uri", "date", "date-time"] {
            assert!(is_known(f));
        }
        assert!(!is_known("textarea"));
        assert!(is_valid("textarea", "anything"));
        assert!(is_valid("hostname", "not a hostname"));
    }

    #[test]
    fn email() {
        for ok in [
            "joe.bloggs@example.com",
            "te~st@example.com",
            "\"joe bloggs\"@example.com",
            "\"joe@bloggs\"@example.com",
            "\"a\\\"b\"@example.com",
            "joe.bloggs@[127.0.0.1]",
            "joe.bloggs@[IPv6:::1]",
            "user@localhost",
            "user+tag@sub.example-site.org",
        ] {
            assert!(is_valid("email", ok), "{ok}");
        }
        for bad in [
            "2962",
            ".test@example.com",
            "test.@example.com",
            "te..st@example.com",
            "joe.bloggs@invalid=domain.com",
            "joe.bloggs@[127.0.0.300]",
            "joe.bloggs@[IPv6:1:2]",
            "@example.com",
            "joe.bloggs@",
            "joe bloggs@example.com",
            "joe@-example.com",
            "joe@example..com",
            "\"unterminated@example.com",
            "jöe@example.com",
            "a@b@example.com",
        ] {
            assert!(!is_valid("email", bad), "{bad}");
        }
        assert!(!is_valid(
            "email",
            &format!("{}@example.com", "a".repeat(65))
        ));
    }

    #[test]
    fn uri() {
        for ok in [
            "http://foo.bar/?baz=qux#quux",
            "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
            "ldap://[2001:db8::7]/c=GB?objectClass?one",
            "http://[v7.fe80::a+en1]/",
            "http://[::1]:8080/x",
            "mailto:John.Doe@example.com",
            "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
            "file:///etc/hosts",
            "about:",
        ] {
            assert!(is_valid("uri", ok), "{ok}");
        }
        for bad in [
            "//foo.bar/?baz=qux#quux",
            "/abc",
            "abc",
            "http:// shouldfail.com",
            "bar,baz:foo",
            "https://[@example.org/test.txt",
            "https://example.org/foobar\u{ae}.txt",
            "http://example.com/%6G",
            "http://example.com/%",
            "1http://example.com",
            "http://example.com:abc/path",
            "http://[::ffff:01.2.3.4]",
            "http:/[::1]",
            "http://[::1]x/",
            "http://a/#frag#ment",
        ] {
            assert!(!is_valid("uri", bad), "{bad}");
        }
    }

    #[test]
    fn date() {
        assert!(is_valid("date", "2020-02-29"));
        assert!(is_valid("date", "0400-02-29"));
        assert!(!is_valid("date", "2100-02-29"));
        assert!(!is_valid("date", "2021-02-29"));
        assert!(!is_valid("date", "2020-04-31"));
        assert!(!is_valid("date", "2020-13-01"));
        assert!(!is_valid("date", "2020-01-00"));
        assert!(!is_valid("date", "2020-1-01"));
        assert!(!is_valid("date", "২020-01-01"));
        assert!(!is_valid("date", ""));
    }

    #[test]
    fn date_time() {
        assert!(is_valid("date-time", "1963-06-19T08:30:06.283185Z"));
        assert!(is_valid("date-time", "1963-06-19t08:30:06z"));
        assert!(is_valid("date-time", "1998-12-31T23:59:60Z"));
        assert!(is_valid("date-time", "1998-12-31T15:59:60.123-08:00"));
        assert!(is_valid("date-time", "1999-01-01T00:59:60+01:00"));
        assert!(!is_valid("date-time", "1998-12-31T23:58:60Z"));
        assert!(!is_valid("date-time", "1998-12-31T23:59:61Z"));
        assert!(!is_valid("date-time", "1990-12-31T15:59:59-24:00"));
        assert!(!is_valid("date-time", "1985-04-12T23:20:50+01"));
        assert!(!is_valid("date-time", "1985-04-12T23:20:50.Z"));
        assert!(!is_valid("date-time", "1985-04-12 23:20:50Z"));
        assert!(!is_valid("date-time", "1985-04-12T23:20:50Z\n"));
        assert!(!is_valid("date-time", "1963-06-1৪T00:00:00Z"));
        assert!(!is_valid("date-time", "1963-06-11T0৪:00:00Z"));
    }
}
