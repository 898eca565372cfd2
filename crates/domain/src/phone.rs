//! Phone numbers of outbound calling in E.164 (`+15551234567`), read with libphonenumber's
//! metadata (the `phonenumber` crate): a national number is read in the tenant's default
//! country, and every check (duplicates, opt-out lists) compares the normalised form.

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
}
