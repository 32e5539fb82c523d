//! Pagination cursors: a list's kind and an item's sequence number,
//! authenticated with HMAC-SHA256 under the server's cursor key; and the
//! application tags of [`Server::sign`](crate::Server::sign), under a key
//! derived from the same one.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use switchboard_types::ErrorObject;

use crate::session::events::ListKind;

/// Signs and checks pagination cursors.
#[derive(Clone)]
pub(crate) struct CursorCodec {
    /// HMAC-SHA256 already keyed (the key's two pad blocks hashed once):
    /// each cursor clones it instead of keying again.
    keyed: Hmac<Sha256>,
    /// Keyed with a key derived from the same server key, for tokens an
    /// application signs ([`crate::Server::sign`]): its tags can never
    /// pass for a list cursor's or a `requestState`'s, nor the reverse.
    application: Hmac<Sha256>,
}

const TAG_LEN: usize = 12;

impl CursorCodec {
    pub(crate) fn new(key: [u8; 32]) -> Self {
        let keyed = <Hmac<Sha256> as Mac>::new_from_slice(&key).expect("HMAC takes any key length");
        let mut derive = keyed.clone();
        derive.update(b"switchboard/application-tokens/v1");
        let application = <Hmac<Sha256> as Mac>::new_from_slice(&derive.finalize().into_bytes())
            .expect("HMAC takes any key length");
        Self { keyed, application }
    }

    /// The application tag of `data`.
    pub(crate) fn application_tag(&self, data: &[u8]) -> [u8; 32] {
        let mut mac = self.application.clone();
        mac.update(data);
        mac.finalize().into_bytes().into()
    }

    /// Whether `tag` is `data`'s application tag (constant time).
    pub(crate) fn verify_application_tag(&self, data: &[u8], tag: &[u8]) -> bool {
        let mut mac = self.application.clone();
        mac.update(data);
        mac.verify_slice(tag).is_ok()
    }

    fn tag(&self, body: &[u8]) -> [u8; TAG_LEN] {
        let mut mac = self.keyed.clone();
        mac.update(body);
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&full[..TAG_LEN]);
        tag
    }

    pub(crate) fn encode(&self, kind: ListKind, seq: u64) -> String {
        let mut bytes = Vec::with_capacity(1 + 8 + TAG_LEN);
        bytes.push(kind as u8);
        bytes.extend_from_slice(&seq.to_be_bytes());
        let tag = self.tag(&bytes);
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub(crate) fn decode(&self, kind: ListKind, cursor: &str) -> Result<u64, ErrorObject> {
        let bad = |why: &str| {
            ErrorObject::invalid_params(format!(
                "invalid cursor {cursor:?} for {}: {why}; pass the nextCursor of a previous {} result unchanged",
                kind.method(),
                kind.method()
            ))
        };
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad("not a cursor this server issued"))?;
        if bytes.len() != 1 + 8 + TAG_LEN {
            return Err(bad("not a cursor this server issued"));
        }
        let (body, tag) = bytes.split_at(1 + 8);
        // Constant-time comparison through the MAC's own verifier.
        let mut mac = self.keyed.clone();
        mac.update(body);
        if mac.verify_truncated_left(tag).is_err() {
            return Err(bad("it was altered or issued by another server"));
        }
        if body[0] != kind as u8 {
            return Err(bad("it belongs to another list"));
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&body[1..]);
        Ok(u64::from_be_bytes(seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_tampering() {
        let codec = CursorCodec::new([7; 32]);
        let c = codec.encode(ListKind::Tools, 42);
        assert_eq!(codec.decode(ListKind::Tools, &c).unwrap(), 42);
        assert!(codec.decode(ListKind::Prompts, &c).is_err(), "foreign list");
        assert!(CursorCodec::new([8; 32]).decode(ListKind::Tools, &c).is_err(), "foreign server");
        let mut bytes = URL_SAFE_NO_PAD.decode(&c).unwrap();
        bytes[8] ^= 1;
        assert!(codec.decode(ListKind::Tools, &URL_SAFE_NO_PAD.encode(bytes)).is_err(), "tampered");
        for junk in ["", "!!", "abc", "dG9vbHM6NDI"] {
            assert!(codec.decode(ListKind::Tools, junk).is_err(), "{junk:?}");
        }
    }

    #[test]
    fn application_tags_verify_only_under_their_key_and_never_as_cursor_tags() {
        let codec = CursorCodec::new([7; 32]);
        let tag = codec.application_tag(b"data");
        assert!(codec.verify_application_tag(b"data", &tag));
        assert!(!codec.verify_application_tag(b"date", &tag), "other data");
        assert!(!CursorCodec::new([8; 32]).verify_application_tag(b"data", &tag), "other key");
        assert_ne!(codec.tag(b"data").as_slice(), &tag[..TAG_LEN], "a key of its own");
    }
}
