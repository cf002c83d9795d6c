//! The answer page (`--answer-page`), for link holders: `GET /answer/` renders the page in the
//! person's language (`Accept-Language` among the shipped ones), its own script and styles are
//! built in, and the element's files come from `--answer-page-assets`. Everything is served under
//! a strict Content-Security-Policy and `nosniff`; the page itself is never cached and never
//! sends a `Referer`. The page's routes are not part of the API, so the OpenAPI document does not
//! list them.

use std::path::{Component, Path as FilePath, PathBuf};
use std::sync::LazyLock;
use std::time::UNIX_EPOCH;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use koder_mcp_elicitation_core::i18n::{Catalog, Locale};

use super::extract::accepted_languages;
use super::links::links_of;
use super::{AppState, Routes};
use crate::answer_page::AnswerPageSettings;
use crate::canonical::sha256_hex;
use crate::error::ApiError;
use crate::views::escape_html;

/// The page's policy: its own scripts (and the element's wasm), styles and images (and the
/// empty `data:` icon that keeps browsers from asking for `/favicon.ico`) only, no frames around
/// it, no form posts, and requests to this origin only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self' \
    'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The page's template: `{{lang}}`, `{{dir}}` and `{{msg:NAME}}` are filled in per request.
const TEMPLATE: &str = include_str!("../../answer/index.html");
/// The page's own script and styles, built in.
const PAGE_SCRIPT: &str = include_str!("../../answer/answer-page.js");
const PAGE_STYLE: &str = include_str!("../../answer/answer-page.css");

/// What the page's messages are named in the catalog: `{{msg:NAME}}` is this and `NAME`.
const MESSAGE_PREFIX: &str = "mcp-elicitation-relay-page-";

/// The largest file served from the assets directory (the element's wasm is far smaller).
const MAX_ASSET_BYTES: u64 = 16 * 1024 * 1024;
/// How long a browser may keep an asset before asking again (with its ETag).
const ASSET_CACHE_CONTROL: &str = "public, max-age=300";

/// The page's routes.
pub fn routes() -> Routes {
    Routes::new()
        .get("/answer", to_page)
        .get("/answer/", page)
        .get("/answer/assets/{*path}", asset)
}

/// `GET /answer`: to `/answer/` (the fragment, and so the token, goes along in the browser).
async fn to_page() -> Redirect {
    Redirect::permanent("/answer/")
}

/// `GET /answer/`: the page, in the first shipped language `Accept-Language` names.
async fn page(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    links_of(&state)?;
    let locale = state.messages.negotiate(accepted_languages(&headers));
    let html = render(TEMPLATE, &state.messages, locale);
    let mut response = (StatusCode::OK, html).into_response();
    let headers = response.headers_mut();
    set(headers, header::CONTENT_TYPE, "text/html; charset=utf-8");
    set(headers, header::CACHE_CONTROL, "no-store");
    set(headers, header::VARY, "accept-language");
    protect(headers);
    Ok(response)
}

/// `GET /answer/assets/{path}`: the page's own script and styles, or one of the element's
/// files under `--answer-page-assets` (regular files with a known type only; no `..`, no
/// listing, nothing outside the directory even through a link).
async fn asset(
    State(state): State<AppState>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let page = links_of(&state)?.page();
    let no_such_file = || ApiError::new(StatusCode::NOT_FOUND, "no such file");
    let Ok(Path(path)) = path else {
        return Err(no_such_file());
    };
    let content_type = content_type(&path).ok_or_else(no_such_file)?;
    let (body, etag) = match path.as_str() {
        "answer-page.js" => (
            Bytes::from_static(PAGE_SCRIPT.as_bytes()),
            BUILT_IN_TAGS.0.clone(),
        ),
        "answer-page.css" => (
            Bytes::from_static(PAGE_STYLE.as_bytes()),
            BUILT_IN_TAGS.1.clone(),
        ),
        _ => read_asset(page, &path).await.ok_or_else(no_such_file)?,
    };
    let unchanged = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == etag));
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (StatusCode::OK, body).into_response()
    };
    let headers = response.headers_mut();
    set(headers, header::CONTENT_TYPE, content_type);
    set(headers, header::CACHE_CONTROL, ASSET_CACHE_CONTROL);
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    protect(headers);
    Ok(response)
}

/// The ETags of the built-in script and styles: their content's digest.
static BUILT_IN_TAGS: LazyLock<(String, String)> = LazyLock::new(|| {
    let tag = |text: &str| format!("\"{}\"", sha256_hex(text.as_bytes()));
    (tag(PAGE_SCRIPT), tag(PAGE_STYLE))
});

/// The file `path` names under the assets directory, and its ETag (from its size and time);
/// `None` for anything but a regular file inside it, of at most [`MAX_ASSET_BYTES`].
async fn read_asset(page: &AnswerPageSettings, path: &str) -> Option<(Bytes, String)> {
    let relative = safe_relative_path(path)?;
    let root = tokio::fs::canonicalize(&page.assets).await.ok()?;
    // Resolved, so a symbolic link cannot lead out of the directory.
    let file = tokio::fs::canonicalize(root.join(relative)).await.ok()?;
    if !file.starts_with(&root) {
        return None;
    }
    let metadata = tokio::fs::metadata(&file).await.ok()?;
    if !metadata.is_file() || metadata.len() > MAX_ASSET_BYTES {
        return None;
    }
    let modified = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_nanos());
    let etag = format!("\"{:x}-{modified:x}\"", metadata.len());
    let body = tokio::fs::read(&file).await.ok()?;
    Some((Bytes::from(body), etag))
}

/// `path` as a relative path of plain names: no empty, `.` or `..` segment, no hidden file, no
/// backslash or NUL; `None` otherwise.
fn safe_relative_path(path: &str) -> Option<PathBuf> {
    let plain = |segment: &str| {
        !segment.is_empty()
            && !segment.starts_with('.')
            && !segment.contains(['\\', '\0', ':'])
            && FilePath::new(segment)
                .components()
                .all(|component| matches!(component, Component::Normal(_)))
    };
    path.split('/')
        .all(plain)
        .then(|| path.split('/').collect())
}

/// The type of a file served, by its extension; `None` for any other file.
fn content_type(path: &str) -> Option<&'static str> {
    let (_, extension) = path.rsplit_once('.')?;
    Some(match extension {
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" | "map" => "application/json",
        _ => return None,
    })
}

/// What every answer of the page's routes carries: the policy, `nosniff`, no `Referer`.
fn protect(headers: &mut HeaderMap) {
    set(
        headers,
        header::CONTENT_SECURITY_POLICY,
        CONTENT_SECURITY_POLICY,
    );
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(headers, header::REFERRER_POLICY, "no-referrer");
}

fn set(headers: &mut HeaderMap, name: HeaderName, value: &'static str) {
    headers.insert(name, HeaderValue::from_static(value));
}

/// `template` with `{{lang}}` and `{{dir}}` the locale's tag and direction, and each
/// `{{msg:NAME}}` the message `mcp-elicitation-relay-page-NAME` in it, HTML-escaped. Anything
/// else between braces is left as it is.
pub fn render(template: &str, catalog: &Catalog, locale: Locale) -> String {
    let mut html = String::with_capacity(template.len() + 512);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let (before, from_braces) = rest.split_at(start);
        html.push_str(before);
        let Some(end) = from_braces.find("}}") else {
            rest = from_braces;
            break;
        };
        let (placeholder, after) = from_braces.split_at(end + 2);
        let name = placeholder
            .strip_prefix("{{")
            .and_then(|inner| inner.strip_suffix("}}"))
            .unwrap_or_default();
        match name {
            "lang" => html.push_str(&escape_html(catalog.tag(locale))),
            "dir" => html.push_str(catalog.direction(locale).as_str()),
            _ => match name.strip_prefix("msg:") {
                Some(message) => {
                    let id = format!("{MESSAGE_PREFIX}{message}");
                    html.push_str(&escape_html(&catalog.plain(locale, &id)));
                }
                None => html.push_str(placeholder),
            },
        }
        rest = after;
    }
    html.push_str(rest);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `{{msg:NAME}}` of `template`.
    fn messages(template: &str) -> Vec<String> {
        template
            .split("{{msg:")
            .skip(1)
            .filter_map(|rest| rest.split_once("}}").map(|(name, _)| name.to_string()))
            .collect()
    }

    #[test]
    fn the_template_names_only_messages_the_catalog_has_in_every_shipped_language() {
        let catalog = Catalog::new();
        let names = messages(TEMPLATE);
        assert!(!names.is_empty());
        for locale in koder_mcp_elicitation_core::i18n::LOCALES {
            for name in &names {
                let id = format!("{MESSAGE_PREFIX}{name}");
                assert!(catalog.has_message(locale, &id), "{id} in {locale:?}");
            }
        }
    }

    #[test]
    fn placeholders_are_filled_in_the_language_and_escaped() {
        let catalog = Catalog::new();
        let template = "<html lang=\"{{lang}}\" dir=\"{{dir}}\"><p>{{msg:expired}}</p>{{other}} {{";
        let english = render(template, &catalog, Locale::EnUs);
        assert_eq!(
            english,
            "<html lang=\"en-US\" dir=\"ltr\"><p>Expired</p>{{other}} {{"
        );
        let portuguese = render(template, &catalog, Locale::PtBr);
        assert!(
            portuguese.starts_with("<html lang=\"pt-BR\""),
            "{portuguese}"
        );
        assert!(!portuguese.contains("{{msg:"), "{portuguese}");
        assert_eq!(
            escape_html("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn only_plain_relative_paths_of_known_types_are_served() {
        for good in ["koder-mcp-elicitation.js", "pkg/core_bg.wasm", "a/b/c.css"] {
            assert!(safe_relative_path(good).is_some(), "{good}");
            assert!(content_type(good).is_some(), "{good}");
        }
        for bad in [
            "../secret.js",
            "a/../../b.js",
            "./a.js",
            "a//b.js",
            "/etc/x.js",
            ".hidden.js",
            "a\\..\\b.js",
            "c:x.js",
            "",
        ] {
            assert!(safe_relative_path(bad).is_none(), "{bad}");
        }
        for unknown in ["index.html", "Cargo.toml", "noextension", "a.js.bak"] {
            assert!(content_type(unknown).is_none(), "{unknown}");
        }
    }
}
