//! Pieces of the OpenAPI document written once for every operation: the list parameters
//! of each resource (from the same spec the parser uses) and the error responses.

use switchboard_domain::list::{
    FilterKind, ListFilter, MAX_PAGE, MAX_PER_PAGE, MAX_QUERY_LENGTH, MAX_SORT_LENGTH,
};
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{RefOr, Required};

use crate::extract::{ID_PATTERN, ListParams};

fn query(name: &str, description: &str, schema: Schema) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(RefOr::T(schema)))
        .build()
}

fn integer(min: i64, max: i64) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Int64,
        )))
        .minimum(Some(min as f64))
        .maximum(Some(max as f64))
        .into()
}

fn string(max: usize) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(max))
}

fn one_of(values: &[&str]) -> Schema {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()))
        .into()
}

impl<F: ListFilter> IntoParams for ListParams<F> {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let sort_names = F::SPEC.sort_names();
        let mut params = vec![
            query(
                "paginated",
                "1 = paginated (default), 0 = every record, streamed",
                integer(0, 1),
            ),
            query(
                "page",
                "Page number, from 1 (default 1)",
                integer(1, MAX_PAGE),
            ),
            query(
                "recordsPerPage",
                "Records per page (default 25)",
                integer(1, MAX_PER_PAGE),
            ),
        ];
        for alias in F::PER_PAGE_ALIASES {
            params.push(query(
                alias,
                "Alias of recordsPerPage",
                integer(1, MAX_PER_PAGE),
            ));
        }
        params.extend([
            query(
                "sortBy",
                &format!("Sort field, one of: {}", sort_names.join(", ")),
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .max_length(Some(MAX_SORT_LENGTH))
                    .enum_values(Some(sort_names.iter().copied()))
                    .into(),
            ),
            query("sortDirection", "Sort direction", one_of(&["asc", "desc"])),
            query(
                "query",
                "Free-text search, case-insensitive substring",
                string(MAX_QUERY_LENGTH).into(),
            ),
        ]);
        for filter in F::FILTERS {
            let schema = match filter.kind {
                FilterKind::Id => ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some(ID_PATTERN))
                    .into(),
                FilterKind::Int(min, max) => integer(min, max),
                FilterKind::Text(max) => string(max).into(),
                FilterKind::OneOf(values) => one_of(values),
            };
            params.push(query(filter.name, filter.description, schema));
        }
        params
    }
}
