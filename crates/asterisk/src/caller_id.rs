//! Asterisk caller ID strings (`"Alice" <101>`) split into a name and a number.

/// A caller ID split into its parts; either may be missing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallerId {
    /// The display name, without its quotes.
    pub name: Option<String>,
    /// The number, as written (digits, maybe `+`, `*`, `#`).
    pub number: Option<String>,
}

/// Splits a caller ID the way Asterisk's `ast_callerid_parse` does: `"Name" <number>`, `Name <number>`
/// and `<number>` take the number from the angle brackets and the name before them (quotes removed);
/// without brackets, a string of phone-number characters is the number and anything else the name.
/// Empty parts are `None`.
pub fn split(text: &str) -> CallerId {
    let text = text.trim();
    if let Some(open) = text.rfind('<')
        && let Some(close) = text[open..].find('>')
    {
        let number = &text[open + 1..open + close];
        let name = unquote(text[..open].trim());
        return CallerId {
            name: non_empty(name),
            number: non_empty(number.trim()),
        };
    }
    let unquoted = unquote(text);
    if unquoted.len() == text.len() && is_phone_number(text) {
        CallerId {
            name: None,
            number: non_empty(text),
        }
    } else {
        CallerId {
            name: non_empty(unquoted),
            number: None,
        }
    }
}

/// Whether `text` is only characters Asterisk's `ast_isphonenumber` allows, with at least one digit.
fn is_phone_number(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+*#-.() ".contains(&b))
}

/// `"Alice"` becomes `Alice`; anything not wrapped in double quotes is unchanged.
fn unquote(text: &str) -> &str {
    text.strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .map_or(text, str::trim)
}

fn non_empty(text: &str) -> Option<String> {
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> (Option<&str>, Option<&str>) {
        // Leaked only in tests, to compare against literals.
        let id = split(text);
        (
            id.name.map(|n| &*Box::leak(n.into_boxed_str())),
            id.number.map(|n| &*Box::leak(n.into_boxed_str())),
        )
    }

    #[test]
    fn splits_the_forms_asterisk_writes() {
        assert_eq!(parts(r#""Alice" <101>"#), (Some("Alice"), Some("101")));
        assert_eq!(parts("Alice <101>"), (Some("Alice"), Some("101")));
        assert_eq!(
            parts(r#""O'Brien, Pat" <+12125550147>"#),
            (Some("O'Brien, Pat"), Some("+12125550147"))
        );
        assert_eq!(parts("<5551234567>"), (None, Some("5551234567")));
        assert_eq!(parts(r#""" <5551234567>"#), (None, Some("5551234567")));
        assert_eq!(parts(r#""Alice" <>"#), (Some("Alice"), None));
        assert_eq!(parts("5551234567"), (None, Some("5551234567")));
        assert_eq!(
            parts("+1 (555) 123-4567"),
            (None, Some("+1 (555) 123-4567"))
        );
        assert_eq!(parts(r#""Alice""#), (Some("Alice"), None));
        assert_eq!(parts("Unknown"), (Some("Unknown"), None));
        assert_eq!(parts(r#""5551234567""#), (Some("5551234567"), None));
        assert_eq!(parts(""), (None, None));
        assert_eq!(parts("  "), (None, None));
    }
}
