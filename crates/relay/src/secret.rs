//! A secret the relay was given (the service token, a JWT secret): kept as text, never shown.
//! Its `Debug` prints `Secret(..)`, so a configuration can be logged whole; reading it takes an
//! explicit [`Secret::expose`].

/// The shortest service token or HS256 secret the relay starts with: shorter ones can be guessed.
pub const MIN_SECRET_BYTES: usize = 32;

/// A secret text whose `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that uses it (a key, a comparison).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Refuses a secret shorter than [`MIN_SECRET_BYTES`], naming the flag it came from.
pub fn check_secret_length(flag: &str, secret: &str) -> Result<(), String> {
    if secret.len() < MIN_SECRET_BYTES {
        return Err(format!(
            "{flag} is {} bytes; give at least {MIN_SECRET_BYTES} (for example: openssl rand -hex 32)",
            secret.len()
        ));
    }
    Ok(())
}

impl From<String> for Secret {
    fn from(secret: String) -> Secret {
        Secret(secret)
    }
}

impl From<&str> for Secret {
    fn from(secret: &str) -> Secret {
        Secret(secret.to_string())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_secret() {
        let secret = Secret::from("hunter2-hunter2");
        assert_eq!(format!("{secret:?}"), "Secret(..)");
        assert_eq!(format!("{:?}", Some(&secret)), "Some(Secret(..))");
        assert_eq!(secret.expose(), "hunter2-hunter2");
    }
}
