//! Pieces of the OpenAPI document written once for every operation: the list parameters
//! of each resource (from the same spec the parser uses) and the error responses.

use switchboard_domain::declare::{DeclaredFilter, query_parameter};
use switchboard_domain::list::{
    DIRECTION, ListSpec, Listed, MAX_SORT_LENGTH, PAGE, PER_PAGE, SEARCH,
};
use switchboard_domain::validation::{FLAG, Rule};
use utoipa::IntoParams;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use crate::extract::ListParams;

/// A query parameter documented by the rule that reads it.
fn query(name: &str, description: &str, rule: &impl Rule) -> Parameter {
    query_parameter(name, description, RefOr::T(rule.query_schema()))
}

impl<R: Listed> IntoParams for ListParams<R> {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        list_parameters(R::SPEC, R::NAME, R::PER_PAGE_ALIASES, R::Filter::parameters)
    }
}

/// The parameters of the list of `record` (sorted and searched by `spec`, taking
/// `per_page_aliases` for `recordsPerPage` and the filter's `filters`): not generic, so
/// compiled once rather than once per listed record (issue 33).
fn list_parameters(
    spec: &ListSpec,
    record: &str,
    per_page_aliases: &[&str],
    filters: fn(&mut Vec<Parameter>),
) -> Vec<Parameter> {
    let sort_names = spec.sort_names();
    let mut params = vec![
        query(
            "paginated",
            "1 = paginated (default), 0 = every record, streamed",
            &FLAG,
        ),
        query("page", "Page number, from 1 (default 1)", &PAGE),
        query("recordsPerPage", "Records per page (default 25)", &PER_PAGE),
    ];
    for alias in per_page_aliases {
        params.push(query(alias, "Alias of recordsPerPage", &PER_PAGE));
    }
    params.extend([
        // The names come from the record's declaration, so the schema is built here.
        query_parameter(
            "sortBy",
            &format!("Sort field, one of: {}", sort_names.join(", ")),
            RefOr::T(Schema::from(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(MAX_SORT_LENGTH))
                    .enum_values(Some(sort_names.iter().copied()))
                    .title(Some(format!("{record}SortBy"))),
            )),
        ),
        query("sortDirection", "Sort direction", &DIRECTION),
        query(
            "query",
            "Free-text search, case-insensitive substring",
            &SEARCH,
        ),
    ]);
    filters(&mut params);
    // A filter's closed set is named after the record it filters (`CallDirection`),
    // the name the document gives it (openapi::enum_names).
    for param in &mut params {
        if let Some(RefOr::T(Schema::Object(object))) = param.schema.as_mut()
            && object.enum_values.is_some()
            && object.title.is_none()
        {
            object.title = Some(format!("{record}{}", upper_first(&param.name)));
        }
    }
    params
}

/// `direction` → `Direction`.
fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
