//! Phone numbers of outbound calling in E.164 (`+15551234567`), read with libphonenumber's
//! metadata (the `phonenumber` crate): a national number is read in the tenant's default
//! country, and every check (duplicates, opt-out lists) compares the normalised form.
//! Numbers stored as written (a tenant's lines, `12025550252` or `+12025550252`) are
//! compared through [`spellings`], the one place that says which stored values are the
//! same number as a sent one.

use phonenumber::Mode;
use phonenumber::country::Id;
use serde_json::{Value, json};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::validation::{Raw, Rule, as_str};

/// The country a tenant's numbers are read in until it sets one.
pub const DEFAULT_COUNTRY: &str = "US";

/// The ISO 3166 alpha-2 codes the metadata knows, in order.
pub fn countries() -> Vec<String> {
    let mut codes = Vec::new();
    for a in 'A'..='Z' {
        for b in 'A'..='Z' {
            let code = format!("{a}{b}");
            if code.parse::<Id>().is_ok() {
                codes.push(code);
            }
        }
    }
    codes
}

/// `text` as E.164, read as a national number of `country` unless it starts with `+`
/// (or an international prefix); the reason it is not a dialable number otherwise. With
/// no country only international numbers are read (the platform's opt-out list).
pub fn normalise(text: &str, country: Option<&str>) -> Result<String, String> {
    let id = country.and_then(|c| c.parse::<Id>().ok());
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("is empty".into());
    }
    let read_in = match country {
        Some(country) => format!("read in {country}"),
        None => "E.164 with its + and country code".to_owned(),
    };
    let number = phonenumber::parse(id, trimmed)
        .map_err(|_| format!("is not a phone number ({read_in})"))?;
    if !number.is_valid() {
        return Err(format!("is not a valid phone number ({read_in})"));
    }
    Ok(number.format().mode(Mode::E164).to_string())
}

/// The digits of `text` when it is a number written in some formatting (digits with
/// spaces, `+`, `-`, `.`, `/` or parentheses: `+1 (555) 010-2030` is `15550102030`);
/// `None` for other text (a name with a digit in it is searched as text).
pub fn digits(text: &str) -> Option<String> {
    let formatting = |c: char| c.is_ascii_digit() || " +-./()".contains(c);
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    (!digits.is_empty() && text.chars().all(formatting)).then_some(digits)
}

/// Every value under which the number `text` may be stored, for comparing it with
/// stored numbers (issue 29: one number, written differently, is one number): as written
/// (trimmed); when it is a number in some formatting, its digits with and without a `+`
/// (this service stores a line as E.164, with or without its `+`: `+1 (202) 555-0252`,
/// `12025550252` and `+12025550252` are one number); and, read in `country`, its E.164
/// form with and without `+` (a national `(202) 555-0252` in `US`).
pub fn spellings(text: &str, country: Option<&str>) -> Vec<String> {
    let trimmed = text.trim();
    let mut all = vec![trimmed.to_owned()];
    if let Some(digits) = digits(trimmed) {
        all.push(format!("+{digits}"));
        all.push(digits);
    }
    if let Some(e164) = country.and_then(|country| normalise(trimmed, Some(country)).ok()) {
        all.push(e164.trim_start_matches('+').to_owned());
        all.push(e164);
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|s| !s.is_empty() && seen.insert(s.clone()));
    all
}

/// An ISO 3166 alpha-2 country code the phone-number metadata knows (`US`, `GB`, `DE`).
#[derive(Clone, Copy, Debug)]
pub struct Country;

impl Rule for Country {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        let s = as_str(raw)?;
        if s.len() == 2 && s.parse::<Id>().is_ok() {
            Ok(s.to_owned())
        } else {
            Err("must be an ISO 3166 alpha-2 country code such as US".into())
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(countries()))
            .into()
    }
    fn example(&self) -> Value {
        json!(DEFAULT_COUNTRY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn national_and_international_numbers_become_e164() {
        assert_eq!(
            normalise("(202) 555-0143", Some("US")).as_deref(),
            Ok("+12025550143")
        );
        assert_eq!(
            normalise("+1 202 555 0143", None).as_deref(),
            Ok("+12025550143")
        );
        assert_eq!(
            normalise("020 7946 0018", Some("GB")).as_deref(),
            Ok("+442079460018")
        );
        assert!(normalise("12", Some("US")).is_err());
        assert!(normalise("not a number", Some("US")).is_err());
        assert!(countries().iter().any(|c| c == "DE"));
    }

    #[test]
    fn one_number_written_differently_has_the_same_spellings() {
        for stored in ["12025550252", "+12025550252"] {
            for sent in [
                "+12025550252",
                "12025550252",
                "+1 (202) 555-0252",
                "1-202-555-0252",
            ] {
                assert!(spellings(sent, None).iter().any(|s| s == stored), "{sent}");
                assert!(
                    spellings(sent, Some("US")).iter().any(|s| s == stored),
                    "{sent}"
                );
            }
        }
        // A national number is read in the tenant's country only.
        assert!(spellings("(202) 555-0252", Some("US")).contains(&"12025550252".to_owned()));
        assert!(!spellings("(202) 555-0252", None).contains(&"12025550252".to_owned()));
        // Text that is not a number is only itself; another number is not a spelling.
        assert_eq!(spellings(" front desk ", None), ["front desk"]);
        assert!(!spellings("+12025550253", None).contains(&"12025550252".to_owned()));
        assert_eq!(spellings("*97", None), ["*97"]);
    }
}
