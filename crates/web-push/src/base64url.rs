//! base64url as Web Push uses it: written without padding, read with or without.

use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, URL_SAFE_NO_PAD};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use crate::PushError;

/// Browsers hand out unpadded values, some libraries pad them: both are read.
const TOLERANT: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

pub(crate) fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

pub(crate) fn decode(text: &str, field: &'static str) -> Result<Vec<u8>, PushError> {
    TOLERANT
        .decode(text.trim())
        .map_err(|_| PushError::Base64 { field })
}
