//! JSON for list pages and for resources computed per page
//! ([`ResourceSource`](crate::ResourceSource)), written by hand.
//!
//! A page is written once, front to back, into the buffer that becomes the
//! response ([`PageWriter`]): registered items are copied from their cached
//! JSON, computed ones are written as the source hands them over.
//!
//! A `resources/list` page of a source is a hundred fresh `Resource`s, each
//! serialized once and thrown away. Through serde_json most of that page's
//! instructions went to `serialize_str`, which looks every byte of every
//! string up in an escape table and writes each run separately (callgrind
//! on `switchboard serve --fixtures bench`: about a third of a page). The strings
//! of a resource (URIs, names, MIME types) almost never need escaping, so
//! [`write_str`] checks a whole string at once (a loop the compiler turns
//! into vector compares) and copies it in one piece; anything that needs
//! escaping goes through serde_json unchanged.
//!
//! The output is byte for byte what `serde_json::to_vec` writes for the same
//! value (a property test holds it to that), and the writer destructures
//! `Resource` exhaustively, so a new field fails to compile here instead of
//! silently going missing from lists.

use switchboard_types::ProtocolVersion;
use switchboard_types::resources::Resource;

use crate::output::Output;

/// `{"<key>":[item,…],"nextCursor":"…"}`, built item by item.
pub(crate) struct PageWriter {
    out: Vec<u8>,
    items: usize,
}

impl PageWriter {
    /// Starts the page of `key`, with room for about `capacity` bytes.
    pub(crate) fn new(key: &str, capacity: usize) -> Self {
        let mut out = Vec::with_capacity(capacity + key.len() + 64);
        out.extend_from_slice(b"{\"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":[");
        Self { out, items: 0 }
    }

    /// Appends an item already rendered as JSON.
    pub(crate) fn item(&mut self, json: &[u8]) {
        self.item_buffer().extend_from_slice(json);
    }

    /// Appends `r`, shaped for `version`.
    #[inline]
    pub(crate) fn resource(&mut self, r: &Resource, version: ProtocolVersion) {
        write_resource(self.item_buffer(), r, version);
    }

    /// The buffer to write the next item into, after its separator.
    #[inline]
    fn item_buffer(&mut self) -> &mut Vec<u8> {
        if self.items > 0 {
            self.out.push(b',');
        }
        self.items += 1;
        &mut self.out
    }

    /// Closes the list, adds `nextCursor` when there is one.
    pub(crate) fn finish(mut self, next: Option<String>) -> Output {
        self.out.push(b']');
        if let Some(next) = next {
            self.out.extend_from_slice(b",\"nextCursor\":");
            write_str(&mut self.out, &next);
        }
        self.out.push(b'}');
        Output::Raw(self.out)
    }
}

/// Appends `s` as a JSON string.
#[inline]
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    if needs_escape(s.as_bytes()) {
        write_escaped(out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Appends `key` (`,"name":` with its comma and colon, as bytes) and `s`
/// as a JSON string. The plain case writes the key and the opening quote as
/// one constant and the string in one copy, without reserving room: the
/// caller has reserved it ([`write_resource`]), and a push past the
/// reservation still grows the buffer as usual. Always inlined: `key` is
/// a constant at every call, so it is stored in place instead of copied by
/// a call to `memcpy` (with a plain `#[inline]` the compiler kept one
/// out-of-line copy and the walk of 10,000 items took 7% more instructions).
#[inline(always)]
fn write_field(out: &mut Vec<u8>, key: &[u8], s: &str) {
    out.extend_from_slice(key);
    if needs_escape(s.as_bytes()) {
        write_escaped(out, s);
    } else {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// A string that needs escapes, through serde_json (rare: kept out of line
/// so the plain path stays small).
#[cold]
#[inline(never)]
fn write_escaped(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail; qed");
}

/// Whether any byte needs a JSON escape: a control character, `"` or `\`.
/// Eight bytes at a time (the usual zero-byte bit trick: a byte of `x` is
/// below `n` when it borrows in `x - n` without having had its top bit
/// set), since these strings are mostly 8 to 40 bytes long. The tail is
/// one more load that overlaps the words before it, not a byte loop.
#[inline(always)]
fn needs_escape(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let word_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes; qed"));
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if special(word_at(i)) {
                return true;
            }
            i += 8;
        }
        return special(word_at(n - 8));
    }
    if n >= 4 {
        // Two four-byte loads that may overlap cover 4 to 7 bytes.
        let half_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("four bytes; qed"));
        return special(u64::from(half_at(0)) | u64::from(half_at(n - 4)) << 32);
    }
    bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Whether any of the eight bytes of `x` is below 0x20, `"` or `\`.
#[inline]
fn special(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    below(x, 0x20) | below(x ^ (ONES * u64::from(b'"')), 1) | below(x ^ (ONES * u64::from(b'\\')), 1) != 0
}

/// Appends `r` as the JSON object serde would write for
/// [`shape::resource`](crate::shape::resource)`(r, version)` (fields in
/// declaration order, `None`s skipped), shaping on the fly: the resource is
/// read in place, never moved or cloned (moving a `Resource` is a
/// few-hundred-byte copy, several per item).
fn write_resource(out: &mut Vec<u8>, r: &Resource, version: ProtocolVersion) {
    let Resource { uri, name, title, description, mime_type, size, icons, annotations, meta } = r;
    let fields = version.rules().fields;
    let title = if fields.title { title } else { &None };
    let meta = if fields.meta { meta } else { &None };
    let icons = if fields.icons { icons } else { &None };
    // Room for every field written by hand (keys, quotes, the digits of
    // `size`) at once, so the copies below do not grow the buffer field by
    // field; escapes and the rare fields serde writes grow it as needed.
    let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    out.reserve(uri.len() + name.len() + text(title) + text(description) + text(mime_type) + 96);
    write_field(out, b"{\"uri\":", uri);
    write_field(out, b",\"name\":", name);
    if let Some(title) = title {
        write_field(out, b",\"title\":", title);
    }
    if let Some(description) = description {
        write_field(out, b",\"description\":", description);
    }
    if let Some(mime_type) = mime_type {
        write_field(out, b",\"mimeType\":", mime_type);
    }
    if let Some(size) = size {
        out.extend_from_slice(b",\"size\":");
        out.extend_from_slice(itoa::Buffer::new().format(*size).as_bytes());
    }
    // Rare and nested: serde_json.
    if let Some(icons) = icons {
        out.extend_from_slice(b",\"icons\":");
        serde_json::to_writer(&mut *out, icons).expect("icons serialize; qed");
    }
    if let Some(annotations) = annotations {
        out.extend_from_slice(b",\"annotations\":");
        if !fields.last_modified && annotations.last_modified.is_some() {
            let mut older = annotations.clone();
            older.last_modified = None;
            serde_json::to_writer(&mut *out, &older).expect("annotations serialize; qed");
        } else {
            serde_json::to_writer(&mut *out, annotations).expect("annotations serialize; qed");
        }
    }
    if let Some(meta) = meta {
        out.extend_from_slice(b",\"_meta\":");
        serde_json::to_writer(&mut *out, meta).expect("_meta serializes; qed");
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use switchboard_types::content::{Annotations, Icon};

    use super::*;

    fn via_handwritten(r: &Resource, version: ProtocolVersion) -> String {
        let mut out = Vec::new();
        write_resource(&mut out, r, version);
        String::from_utf8(out).unwrap()
    }

    fn via_serde(r: &Resource, version: ProtocolVersion) -> String {
        serde_json::to_string(&crate::shape::resource(r.clone(), version)).unwrap()
    }

    fn finished(page: PageWriter, next: Option<&str>) -> String {
        match page.finish(next.map(str::to_owned)) {
            Output::Raw(bytes) => String::from_utf8(bytes).unwrap(),
            Output::Map(_) | Output::InputRequired(_) | Output::Task(_) => unreachable!("pages are raw"),
        }
    }

    #[test]
    fn pages_join_items_and_end_with_the_cursor() {
        assert_eq!(finished(PageWriter::new("tools", 0), None), r#"{"tools":[]}"#);
        let mut page = PageWriter::new("resources", 0);
        page.item(br#"{"cached":true}"#);
        page.resource(&Resource::new("u", "n"), ProtocolVersion::LATEST);
        page.item(b"{}");
        let text = finished(page, Some("c\"1"));
        assert_eq!(text, r#"{"resources":[{"cached":true},{"uri":"u","name":"n"},{}],"nextCursor":"c\"1"}"#);
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["nextCursor"], "c\"1");
    }

    #[test]
    fn escapes_are_found_at_every_position() {
        for len in 0..40 {
            let clean = "a".repeat(len);
            assert!(!needs_escape(clean.as_bytes()), "{len}");
            for at in 0..len {
                for bad in [b'"', b'\\', b'\n', 0x00, 0x1f] {
                    let mut bytes = clean.clone().into_bytes();
                    bytes[at] = bad;
                    assert!(needs_escape(&bytes), "{len} {at} {bad}");
                }
                // Neighbours of the special bytes are clean.
                for fine in [0x20, b'!', b'#', b'[', b']', 0x7f, 0x80, 0xff] {
                    let mut bytes = clean.clone().into_bytes();
                    bytes[at] = fine;
                    assert!(!needs_escape(&bytes), "{len} {at} {fine}");
                }
            }
        }
    }

    #[test]
    fn plain_and_escaped_strings_match_serde_json() {
        for s in ["", "mem://item/1", "a\"b", "back\\slash", "tab\there", "nl\n", "\u{1}", "é✓𝄞", "\u{7f}"]
        {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn every_field_matches_serde_json() {
        let mut r = Resource::new("file:///a b/\"q\".txt", "q");
        r.title = Some("Title".into());
        r.description = Some("line one\nline two".into());
        r.mime_type = Some("text/plain".into());
        r.size = Some(u64::MAX);
        r.icons = Some(vec![
            serde_json::from_value::<Icon>(serde_json::json!({"src": "https://x/i.png"})).unwrap(),
        ]);
        r.annotations = Some(
            serde_json::from_value::<Annotations>(
                serde_json::json!({"priority": 0.5, "lastModified": "2025-01-12T15:00:58Z"}),
            )
            .unwrap(),
        );
        r.meta = Some(serde_json::from_value(serde_json::json!({"k": [1, "two"]})).unwrap());
        for version in ProtocolVersion::ALL {
            assert_eq!(via_handwritten(&r, version), via_serde(&r, version), "{version:?}");
        }
        // The newest revision keeps everything.
        assert_eq!(via_handwritten(&r, ProtocolVersion::LATEST), serde_json::to_string(&r).unwrap());
        assert_eq!(
            via_handwritten(&Resource::new("u", "n"), ProtocolVersion::LATEST),
            r#"{"uri":"u","name":"n"}"#
        );
    }

    proptest! {
        #[test]
        fn any_resource_matches_serde_json(
            uri in any::<String>(),
            name in any::<String>(),
            title in proptest::option::of(any::<String>()),
            description in proptest::option::of(any::<String>()),
            mime_type in proptest::option::of("[ -~]{0,20}"),
            size in proptest::option::of(any::<u64>()),
            priority in proptest::option::of(0.0f64..=1.0),
            version in proptest::sample::select(ProtocolVersion::ALL.to_vec()),
        ) {
            let mut r = Resource::new(uri, name);
            r.title = title;
            r.description = description;
            r.mime_type = mime_type;
            r.size = size;
            r.annotations = priority.map(|p| {
                serde_json::from_value::<Annotations>(serde_json::json!({"priority": p})).unwrap()
            });
            prop_assert_eq!(via_handwritten(&r, version), via_serde(&r, version));
        }
    }
}
