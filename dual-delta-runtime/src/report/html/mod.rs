//! The report's pages: one `index.html` per test, and the top-level
//! `index.html` listing every report.
//!
//! The pages are self-contained (inline CSS, no scripts, nothing fetched):
//! they open offline from the file system. The plots are referenced as
//! `<img>` by relative path, as are `summary.json` and `deltas.csv`. The
//! pages are askama templates (`templates/*.html` in this crate, compiled
//! in), and every value they interpolate is escaped by `Html`, the
//! escaper `askama.toml` names. The pages are also well-formed XML, so that
//! they can be checked with an XML parser.

mod index;
mod run;

use core::fmt;

pub(crate) use index::{index_page, scan_reports};
pub(crate) use run::test_page;

/// The version written at the foot of every page.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The pages' escaper: `&`, `<`, `>`, `"` and `'` as `&amp;`, `&lt;`,
/// `&gt;`, `&quot;` and `&#39;`, for HTML text and attribute values.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Html;

impl askama::filters::Escaper for Html {
    fn write_escaped_str<W: fmt::Write>(&self, mut dest: W, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            dest.write_str(&rest[..at])?;
            dest.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        dest.write_str(rest)
    }
}

/// `s` escaped by [`Html`] (for the SVG plots, written without templates).
pub(crate) fn escape(s: &str) -> String {
    use askama::filters::Escaper as _;
    let mut out = String::with_capacity(s.len());
    let _ = Html.write_escaped_str(&mut out, s);
    out
}

/// Percent-encodes a relative path segment for an `href`.
fn url_segment(s: &str) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A rendered page, ending with a newline (askama drops the template's
/// last one).
fn render(page: &impl askama::Template) -> String {
    let mut out = page.render().unwrap_or_else(|e| {
        format!(
            "<p>The page could not be written: {}</p>",
            escape(&e.to_string())
        )
    });
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("Δ1 − Δ2"), "Δ1 − Δ2");
        assert_eq!(url_segment("a b/ü.c"), "a%20b%2F%C3%BC.c");
    }
}
