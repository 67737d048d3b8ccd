//! Measuring and cutting text as Claude Code does for what it lists: descriptions
//! joined onto one line, cut in UTF-16 code units, and their display width. Used by the Skill
//! listing, the agent listing and the lock's descriptions measured at load.

use std::borrow::Cow;

/// The truncation mark, U+2026.
const ELLIPSIS: char = '\u{2026}';

/// A description with what the listing needs to know of it, measured once (at load for the
/// lock's, once per process for the bundled ones) rather than every turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Described<'a> {
    pub text: &'a str,
    /// [`size`] of the text.
    pub size: usize,
    /// Its length in UTF-16 code units.
    pub units: usize,
}

impl<'a> Described<'a> {
    pub fn new(text: &'a str) -> Described<'a> {
        let units = if text.is_ascii() { text.len() } else { text.encode_utf16().count() };
        Described { text, size: size(text), units }
    }
    /// The text cut to `max` code units, and its size.
    pub fn cut(&self, max: usize) -> (Cow<'a, str>, usize) {
        if self.units <= max.max(1) {
            return (Cow::Borrowed(self.text), self.size);
        }
        let text = cut(Cow::Borrowed(self.text), max);
        let size = size(&text);
        (text, size)
    }
}

// One home for the listed text: the compiler's rule measures the same text the listing sends.
pub(crate) use capc_compiler::listed::{escaped as listing_escaped, joined as describe, one_line};

/// Claude Code's `s.length > max ? s.slice(0, max − 1) + "…" : s`, in UTF-16 code units.
/// Where JavaScript would cut a surrogate pair in half, the whole character is dropped instead.
pub(crate) fn cut(text: Cow<'_, str>, max: usize) -> Cow<'_, str> {
    let max = max.max(1);
    let long = if text.is_ascii() { text.len() > max } else { text.encode_utf16().count() > max };
    if !long {
        return text;
    }
    let mut units = 0;
    let mut out = String::with_capacity(max + 3);
    for c in text.chars() {
        units += c.len_utf16();
        if units > max - 1 {
            break;
        }
        out.push(c);
    }
    out.push(ELLIPSIS);
    Cow::Owned(out)
}

/// The size a piece of the listing counts for: its display width plus one per line break.
pub(crate) fn size(text: &str) -> usize {
    display_width(text) + text.bytes().filter(|b| *b == b'\n').count()
}

/// A description with its [`size`] and UTF-16 length, for [`Described`].
pub(crate) fn measured(text: &str) -> (String, usize, usize) {
    let d = Described::new(text);
    (text.to_string(), d.size, d.units)
}

impl<'a> Described<'a> {
    /// From a description measured before.
    pub(crate) fn new_measured(m: &'a (String, usize, usize)) -> Described<'a> {
        Described::with_measure(&m.0, m.1, m.2)
    }

    /// `text` with the [`size`] and UTF-16 length measured before.
    pub(crate) fn with_measure(text: &'a str, size: usize, units: usize) -> Described<'a> {
        Described { text, size, units }
    }
}

/// Display width in terminal columns: a simple stand-in for Claude Code's `stringWidth`.
///
/// * 0: control characters (C0, DEL, C1 — so an embedded `\n` is 0), combining marks
///   (U+0300–U+036F, U+1AB0–U+1AFF, U+1DC0–U+1DFF, U+20D0–U+20FF, U+FE20–U+FE2F), zero-width
///   space/joiners (U+200B–U+200D, U+2060–U+2064, U+FEFF), variation selectors (U+FE00–U+FE0F)
///   and the soft hyphen.
/// * 2: East-Asian wide and emoji blocks (U+1100–U+115F, U+2E80–U+A4CF, U+AC00–U+D7A3,
///   U+F900–U+FAFF, U+FE30–U+FE4F, U+FF00–U+FF60, U+FFE0–U+FFE6, U+1F300–U+1F64F,
///   U+1F680–U+1F6FF, U+1F900–U+1F9FF, U+1FA70–U+1FAFF, U+20000–U+3FFFD).
/// * 1: everything else.
///
/// Unlike `stringWidth`, an emoji ZWJ sequence measures the sum of its parts.
pub(crate) fn display_width(s: &str) -> usize {
    // ASCII (nearly every description): one column per printable byte, no table lookups.
    if s.is_ascii() {
        return s.bytes().filter(|b| (0x20..0x7f).contains(b)).count();
    }
    s.chars()
        .map(|c| match c as u32 {
            0x20..=0x7e => 1,
            0..=0x7f => 0,
            _ => char_width(c),
        })
        .sum()
}

fn char_width(c: char) -> usize {
    if is_control(c) || is_zero_width(c) {
        0
    } else if is_wide(c) {
        2
    } else {
        1
    }
}

fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
}

/// Marks that render on the preceding character.
fn is_combining(c: char) -> bool {
    matches!(
        c,
        '\u{0300}'..='\u{036F}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{FE20}'..='\u{FE2F}'
    )
}

fn is_zero_width(c: char) -> bool {
    is_combining(c)
        || matches!(
            c,
            '\u{AD}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2064}'
                | '\u{FEFF}'
                | '\u{FE00}'..='\u{FE0F}'
        )
}

fn is_wide(c: char) -> bool {
    matches!(
        c,
        '\u{1100}'..='\u{115F}'
            | '\u{2E80}'..='\u{A4CF}'
            | '\u{AC00}'..='\u{D7A3}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{FE30}'..='\u{FE4F}'
            | '\u{FF00}'..='\u{FF60}'
            | '\u{FFE0}'..='\u{FFE6}'
            | '\u{1F300}'..='\u{1F64F}'
            | '\u{1F680}'..='\u{1F6FF}'
            | '\u{1F900}'..='\u{1F9FF}'
            | '\u{1FA70}'..='\u{1FAFF}'
            | '\u{20000}'..='\u{3FFFD}'
    )
}
