//! An identity provider's public keys (a JWKS document) for people's RS256, ES256 and EdDSA tokens.
//! Each key is kept by its `kid` with the one algorithm the key itself pins, never the token's
//! header. An unknown `kid` refetches the set (at most once per [`REFETCH_INTERVAL`]), so a
//! provider's key rotation needs no restart; a failed refetch keeps the keys already known.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;

/// The largest JWKS document read (providers publish a few keys, a few KB).
pub const MAX_JWKS_BYTES: usize = 1024 * 1024;
/// How long one fetch of an `https://` key set may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The least time between two fetches: unknown `kid`s (anyone can send them) never hammer the
/// provider.
pub const REFETCH_INTERVAL: Duration = Duration::from_secs(3);

/// One usable key (public: a key set's symmetric keys are never taken): its algorithm, pinned
/// when the set was read.
#[derive(Debug, Clone)]
pub struct PinnedKey {
    /// The only algorithm a token verified with this key may name.
    pub algorithm: Algorithm,
    /// The public key.
    pub key: DecodingKey,
}

/// Where the set comes from.
#[derive(Debug, Clone)]
enum Source {
    /// A local file (`file:///…`): tests and mounted secrets.
    File(std::path::PathBuf),
    /// An identity provider's JWKS URL, fetched over TLS only.
    Https {
        url: String,
        client: reqwest::Client,
    },
}

/// The keys of one JWKS URL, refetched on an unknown `kid`.
#[derive(Debug)]
pub struct KeySet {
    source: Source,
    keys: RwLock<Arc<HashMap<String, PinnedKey>>>,
    /// When the set was last fetched (successfully or not); held while fetching, so concurrent
    /// misses wait for one fetch instead of each starting their own.
    last_fetch: Mutex<Instant>,
}

impl KeySet {
    /// Reads the set at `url` (`https://…` or `file:///absolute/path`). The relay does not start
    /// on an error: a wrong URL is better found at start than at the first token.
    pub async fn load(url: &str) -> Result<KeySet, String> {
        let source = source_of(url)?;
        let keys = fetch(&source).await?;
        Ok(KeySet {
            source,
            keys: RwLock::new(Arc::new(keys)),
            last_fetch: Mutex::new(Instant::now()),
        })
    }

    /// The key with this `kid`. An unknown one refetches the set first, unless the last fetch
    /// was less than [`REFETCH_INTERVAL`] ago.
    pub async fn key(&self, kid: &str) -> Option<PinnedKey> {
        if let Some(key) = self.keys.read().await.get(kid) {
            return Some(key.clone());
        }
        let mut last_fetch = self.last_fetch.lock().await;
        // Someone else may have fetched while this one waited for the lock.
        if let Some(key) = self.keys.read().await.get(kid) {
            return Some(key.clone());
        }
        if last_fetch.elapsed() < REFETCH_INTERVAL {
            return None;
        }
        *last_fetch = Instant::now();
        match fetch(&self.source).await {
            Ok(keys) => {
                let found = keys.get(kid).cloned();
                *self.keys.write().await = Arc::new(keys);
                found
            }
            Err(error) => {
                // Keep the keys already known; said once per failed fetch (at most one per interval).
                tracing::warn!(%error, "refetching the JWKS failed");
                None
            }
        }
    }
}

fn source_of(url: &str) -> Result<Source, String> {
    if let Some(path) = url.strip_prefix("file://") {
        if !path.starts_with('/') {
            return Err(format!(
                "--jwks-url {url:?}: a file URL names an absolute path (file:///etc/relay/jwks.json)"
            ));
        }
        return Ok(Source::File(path.into()));
    }
    if url.starts_with("https://") && url.len() > "https://".len() {
        return Ok(Source::Https {
            url: url.to_string(),
            client: https_client()?,
        });
    }
    Err(format!(
        "--jwks-url {url:?} must start with https:// (or file:/// for a local file)"
    ))
}

/// A reqwest client for `https://` only, with its own rustls configuration (ring, the platform's
/// roots): nothing process-wide is installed behind the application's back.
pub fn https_client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .tls_backend_preconfigured(crate::tls::client_config("--jwks-url")?)
        .https_only(true)
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|error| format!("cannot set up the HTTP client for --jwks-url: {error}"))
}

async fn fetch(source: &Source) -> Result<HashMap<String, PinnedKey>, String> {
    let bytes = match source {
        Source::File(path) => read_file(path)?,
        Source::Https { url, client } => fetch_https(client, url).await?,
    };
    parse_key_set(&bytes)
}

fn read_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let cannot_read = |error| format!("cannot read the JWKS file {}: {error}", path.display());
    let file = std::fs::File::open(path).map_err(cannot_read)?;
    let mut bytes = Vec::new();
    file.take(MAX_JWKS_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    if bytes.len() > MAX_JWKS_BYTES {
        return Err(format!("the JWKS is larger than {MAX_JWKS_BYTES} bytes"));
    }
    Ok(bytes)
}

async fn fetch_https(client: &reqwest::Client, url: &str) -> Result<Vec<u8>, String> {
    let mut response = client
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|error| format!("cannot fetch the JWKS: {error}"))?;
    if !response.status().is_success() {
        return Err(format!("the JWKS URL answered {}", response.status()));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| format!("cannot read the JWKS: {error}"))?
    {
        if bytes.len() + chunk.len() > MAX_JWKS_BYTES {
            return Err(format!("the JWKS is larger than {MAX_JWKS_BYTES} bytes"));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The usable signing keys of a JWKS document by `kid`. Keys without a `kid`, for encryption, of
/// an unsupported type or curve, or whose `alg` does not fit their type are skipped; a document
/// with none left is an error.
pub fn parse_key_set(bytes: &[u8]) -> Result<HashMap<String, PinnedKey>, String> {
    let document: Value =
        serde_json::from_slice(bytes).map_err(|error| format!("the JWKS is not JSON: {error}"))?;
    let Some(entries) = document.get("keys").and_then(Value::as_array) else {
        return Err("the JWKS has no \"keys\" array".into());
    };
    let mut keys = HashMap::new();
    for entry in entries {
        let Ok(jwk) = serde_json::from_value::<Jwk>(entry.clone()) else {
            continue;
        };
        let Some(kid) = jwk.common.key_id.clone().filter(|kid| !kid.is_empty()) else {
            continue;
        };
        let Some(pinned) = pin(&jwk) else {
            continue;
        };
        // A repeated kid keeps its first key: which one a token meant cannot be told.
        keys.entry(kid).or_insert(pinned);
    }
    if keys.is_empty() {
        return Err(
            "the JWKS has no usable signing key (RSA, EC P-256/P-384 or Ed25519, with a kid)"
                .into(),
        );
    }
    Ok(keys)
}

/// The key and the one algorithm it verifies, by its own type, curve and `alg` (never a
/// symmetric key).
fn pin(jwk: &Jwk) -> Option<PinnedKey> {
    if matches!(jwk.common.public_key_use, Some(ref usage) if *usage != PublicKeyUse::Signature) {
        return None;
    }
    let declared = jwk.common.key_algorithm;
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => match declared.map(Algorithm::try_from) {
            None => Algorithm::RS256,
            Some(Ok(algorithm)) if algorithm.family() == AlgorithmFamily::Rsa => algorithm,
            Some(_) => return None,
        },
        AlgorithmParameters::EllipticCurve(params) => match params.curve {
            EllipticCurve::P256 => Algorithm::ES256,
            EllipticCurve::P384 => Algorithm::ES384,
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(params) if params.curve == EllipticCurve::Ed25519 => {
            Algorithm::EdDSA
        }
        _ => return None,
    };
    // A key's own `alg` must be the one its type and curve call for.
    if declared.is_some_and(|declared| declared != KeyAlgorithm::from(algorithm)) {
        return None;
    }
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(PinnedKey { algorithm, key })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RSA_N: &str = "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw";

    fn rsa(kid: &str, alg: Option<&str>) -> Value {
        let mut key = json!({"kty": "RSA", "kid": kid, "n": RSA_N, "e": "AQAB"});
        if let Some(alg) = alg {
            key["alg"] = json!(alg);
        }
        key
    }

    fn parse(keys: Value) -> Result<HashMap<String, PinnedKey>, String> {
        parse_key_set(json!({ "keys": keys }).to_string().as_bytes())
    }

    #[test]
    fn each_key_pins_its_algorithm() {
        let keys = parse(json!([
            rsa("plain", None),
            rsa("pss", Some("PS256")),
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        ]))
        .unwrap();
        assert_eq!(keys["plain"].algorithm, Algorithm::RS256);
        assert_eq!(keys["pss"].algorithm, Algorithm::PS256);
        assert_eq!(keys["ed"].algorithm, Algorithm::EdDSA);
    }

    #[test]
    fn unusable_keys_are_skipped_and_an_empty_set_is_an_error() {
        let keys = parse(json!([
            rsa("good", None),
            rsa("", None),
            rsa("mismatched", Some("ES256")),
            rsa("hmac-claimed", Some("HS256")),
            {"kty": "RSA", "n": RSA_N, "e": "AQAB"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": RSA_N, "e": "AQAB"},
            {"kty": "oct", "kid": "symmetric", "k": "c2VjcmV0"},
            {"kty": "OKP", "crv": "X25519", "kid": "x", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "EC", "crv": "P-521", "kid": "p521", "x": "AA", "y": "AA"},
            {"kty": "whatever", "kid": "other"},
            "not an object",
        ]))
        .unwrap();
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["good"]);
        assert!(parse(json!([rsa("enc", Some("RSA-OAEP"))])).is_err());
        assert!(parse_key_set(b"not json").is_err());
        assert!(parse_key_set(b"{\"keys\": {}}").is_err());
        assert!(parse_key_set(b"[]").is_err());
    }

    #[tokio::test]
    async fn https_fetches_bring_their_own_tls_provider() {
        // Nothing in this crate's library installs a process-wide provider (the lib tests never
        // call client::http_client), so none is there before or after.
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
        let error = KeySet::load("https://127.0.0.1:9/jwks.json")
            .await
            .unwrap_err();
        assert!(error.starts_with("cannot fetch the JWKS"), "{error}");
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
    }

    #[test]
    fn only_https_and_absolute_file_urls_are_sources() {
        for url in [
            "http://idp.example/jwks",
            "ftp://x",
            "file://relative/jwks.json",
            "https://",
            "",
        ] {
            assert!(source_of(url).is_err(), "{url}");
        }
        assert!(matches!(
            source_of("file:///tmp/jwks.json"),
            Ok(Source::File(_))
        ));
    }
}
