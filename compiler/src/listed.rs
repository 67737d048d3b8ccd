//! A skill's description as Claude Code's Skill listing sends it: the one place that says
//! which text is listed and how long it is, for the listing itself (`capc session`, the
//! budget) and for the rule that warns when the listing cuts it (`skill-description-too-long`).
//!
//! The listed text is the description (or, without one, the body's first line), its lines
//! joined with single spaces, then ` - ` and `when_to_use` when there is one, with `<` and `>`
//! written `&lt;` and `&gt;`; the listing cuts it to `skillListingMaxDescChars` (default
//! [`MAX_DESC_UNITS`]) UTF-16 code units, as JavaScript counts a string's length.

use std::borrow::Cow;

/// `skillListingMaxDescChars` when settings do not set it, in UTF-16 code units.
pub const MAX_DESC_UNITS: usize = 1536;

/// A user's description as Claude Code loads it: its lines joined with single spaces.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" "))
}

/// `description` + ` - ` + `when_to_use` (either may be missing).
pub fn joined<'a>(description: Option<Cow<'a, str>>, when_to_use: Option<&'a str>) -> Option<Cow<'a, str>> {
    match (description, when_to_use.filter(|w| !w.is_empty())) {
        (Some(d), Some(w)) => Some(Cow::Owned(format!("{d} - {w}"))),
        (Some(d), None) => Some(d),
        (None, Some(w)) => Some(Cow::Borrowed(w)),
        (None, None) => None,
    }
}

/// A description as the Skill listing sends it: `<` and `>` written `&lt;` and `&gt;` (`&` stays
/// as it is), so a description cannot open or close a tag of the prompt around it. The listing's
/// budget measures this text. The agent listing sends its descriptions unescaped.
pub fn escaped(text: &str) -> Cow<'_, str> {
    if text.contains(['<', '>']) {
        Cow::Owned(text.replace('<', "&lt;").replace('>', "&gt;"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The text the listing sends for a skill before it is cut: [`one_line`] of `description` (else
/// of `fallback`, the body's first line), [`joined`] with `when_to_use`, [`escaped`].
pub fn listed(description: Option<&str>, fallback: Option<&str>, when_to_use: Option<&str>) -> Option<String> {
    let description = description.or(fallback).map(one_line);
    joined(description, when_to_use).map(|d| escaped(&d).into_owned())
}

/// A text's length as JavaScript counts it: UTF-16 code units.
pub fn units(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.encode_utf16().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listed_text_joins_escapes_and_counts_as_javascript_does() {
        assert_eq!(
            listed(Some("Deploy\n  the app"), None, Some("asked <to> ship")).as_deref(),
            Some("Deploy the app - asked &lt;to&gt; ship")
        );
        assert_eq!(listed(None, Some("First line"), None).as_deref(), Some("First line"));
        assert_eq!(listed(None, None, Some("")), None);
        // An emoji is two units; `é` one.
        assert_eq!(units("é😀"), 3);
    }
}
