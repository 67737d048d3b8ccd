//! The nesting bound: frontmatter nested deeper than [`MAX_DEPTH`] is refused before serde_yaml
//! sees it.

/// Frontmatter nested deeper than this (flow brackets and block indentation together) is
/// refused before serde_yaml sees it: libyaml's scanner takes time quadratic in the flow
/// nesting (a 1 MB `[[[[…` ran for minutes), and serde_yaml stops at 128 levels anyway.
pub const MAX_DEPTH: usize = 128;

/// The offset (in `yaml`) of the first character that nests deeper than [`MAX_DEPTH`], in
/// one linear pass. Block levels are the indentation columns open at a line (and the
/// columns after `- ` / `? ` indicators on it); flow levels are the open `[` and `{`
/// outside quoted scalars, comments and block scalars. It may count a bracket inside a plain
/// scalar that YAML would not nest, never the other way round.
pub(super) fn too_deep(yaml: &str) -> Option<usize> {
    let bytes = yaml.as_bytes();
    let mut columns: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // Inside a quoted scalar (which may span lines): its quote character.
    let mut quote: Option<u8> = None;
    // Inside a block scalar: the indentation of the line that opened it.
    let mut block_scalar: Option<usize> = None;
    let mut value_start = true;
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        // Tabs count as two columns, as the tab-tolerant retry reads them.
        let indent = line.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        let column = line[..indent].iter().map(|&b| if b == b'\t' { 2 } else { 1 }).sum::<usize>();
        let blank = line[indent..].iter().all(|b| b.is_ascii_whitespace());
        if let Some(opener) = block_scalar {
            if blank || column > opener {
                start = end + 1;
                continue;
            }
            block_scalar = None;
        }
        let mut at = indent;
        if quote.is_none() && flow == 0 && !blank && line[indent] != b'#' {
            while columns.last().is_some_and(|&c| c >= column) {
                columns.pop();
            }
            columns.push(column);
            // Compact nested sequences and complex keys: `- - - x`, `? - x`.
            while at + 1 < line.len() && matches!(line[at], b'-' | b'?') && line[at + 1] == b' ' {
                at += 1;
                at += line[at..].iter().take_while(|&&b| b == b' ').count();
                columns.push(column + at - indent);
            }
            if columns.len() > MAX_DEPTH {
                return Some(start + at.min(line.len().saturating_sub(1)));
            }
        }
        // A quoted scalar begins only where a value may: at a block line's start, after a flow
        // indicator, or after `-`, `?` or `:` and a space (inside flow collections this
        // carries over from the line before).
        if flow == 0 && quote.is_none() {
            value_start = true;
        }
        let mut i = at;
        while i < line.len() {
            let b = line[i];
            match quote {
                Some(b'"') => match b {
                    b'\\' => i += 1,
                    b'"' => quote = None,
                    _ => {}
                },
                Some(_) => {
                    if b == b'\'' {
                        if line.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = None;
                        }
                    }
                }
                None => match b {
                    b'#' if i == 0 || matches!(line[i - 1], b' ' | b'\t') => break,
                    b'"' | b'\'' if value_start => quote = Some(b),
                    b'[' | b'{' => {
                        flow += 1;
                        if columns.len() + flow > MAX_DEPTH {
                            return Some(start + i);
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            if quote.is_none() && !matches!(b, b' ' | b'\t') {
                let spaced = matches!(line.get(i + 1), None | Some(b' ' | b'\t'));
                value_start = matches!(b, b'[' | b'{' | b',') || (matches!(b, b'-' | b'?' | b':') && spaced);
            }
            i += 1;
        }
        if quote.is_none() && flow == 0 && opens_block_scalar(&line[indent..]) {
            block_scalar = Some(column);
        }
        start = end + 1;
    }
    None
}

/// Whether a line (without its indentation) ends with a block scalar indicator (`key: |`,
/// `- >-`, `|2`), before any comment.
fn opens_block_scalar(content: &[u8]) -> bool {
    let text = String::from_utf8_lossy(content);
    let text = match text.find(" #") {
        Some(i) => &text[..i],
        None => &text,
    };
    let text = text.trim_end();
    let token = text.rsplit(' ').next().unwrap_or("");
    let before = text[..text.len() - token.len()].trim_end();
    let indicator = token.starts_with(['|', '>']) && token[1..].bytes().all(|b| matches!(b, b'-' | b'+' | b'1'..=b'9'));
    indicator && (before.is_empty() || before.ends_with(':') || before.ends_with('-') || before.ends_with('?'))
}
