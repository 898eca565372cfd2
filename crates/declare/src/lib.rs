//! Derives that state each field's rule once: the reader of a request body or a list
//! filter, and the OpenAPI schema that documents it, are both generated from the same
//! declaration, so the document and the behaviour cannot drift apart.
//!
//! - `#[derive(Body)]` on a struct of a JSON body: `FromBody` (every broken rule reported
//!   with its `'body/…'` path), `Declared` (the reader and schema, so bodies nest), and
//!   utoipa's `ToSchema`.
//! - `#[derive(Filter)]` on a struct of list filters: `FromQuery` and the query
//!   parameters of the document.
//! - `#[derive(Listed)]` on a listed record: its sort whitelist, search columns and filter.
//! - `#[derive(Stored)]` on a record read from its table's row: the columns of its select.
//! - `#[derive(FromRow)]` and `#[derive(SqlNewtype)]`: sqlx's row and value traits, in
//!   place of sqlx's own derives (whose macros compile every database driver a second
//!   time, for the compiler).
//!
//! - `#[boxed]` on an `async fn`: its future boxed where it is defined, so its body is
//!   compiled once rather than by every crate that awaits it.
//!
//! The generated code names `::switchboard_domain`, whose `declare` module holds the
//! runtime half (the `Field` trait every rule implements, schema helpers).

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

mod body;
mod boxed;
mod filter;
mod listed;
mod row;
mod stored;
mod syntax;

/// Makes an `async fn` answer `Pin<Box<dyn Future + Send>>`, boxed where it is defined:
/// its body is then compiled once, in its own crate, instead of in every crate that
/// awaits it (rustc compiles a coroutine's body where it is polled). Every elided
/// lifetime of the arguments becomes the future's. docs/benchmarks.md, "Why an async body
/// is compiled where it is polled".
#[proc_macro_attribute]
pub fn boxed(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(
            proc_macro2::Span::call_site(),
            "#[boxed] takes no arguments",
        )
        .into_compile_error()
        .into();
    }
    let item = parse_macro_input!(item as syn::ItemFn);
    boxed::expand(item)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `FromBody`, `Declared` and `ToSchema` for a JSON request body.
///
/// Struct attributes, `#[body(...)]`:
/// - `require(a, b)`: keys of optional (often flattened) fields this body requires.
/// - `fixed(jsonKey = "message")`: a field of the record that this body cannot change
///   (`FromBody::FIXED`): the reader leaves it alone, and the HTTP layer accepts it when it
///   equals the record's current value (a `GET` answer sent back, interface §2) and
///   refuses it with `'body/jsonKey' message` otherwise; documented as a `readOnly`
///   property.
/// - `exclusive(a, b)`: not both given (a `null` one counts as not given, as answers show
///   the form not used); documented as `not` both present and not null.
/// - `check = path`: `fn(&Self, &mut ObjectReader) -> bool`, a rule across fields that
///   no schema states; `schema = path`: `fn(&mut Object)` adding what a schema can state
///   of such a rule.
/// - `example = path`: `fn() -> serde_json::Value`, an example body when the fields'
///   examples together break a rule across fields.
/// - `placement(tenant, branch)`: the body's optional `tenantId` (and `branchId`) must be
///   sent by callers that have no tenant (branch) of their own (`FromBody::PLACEMENT`).
/// - `update(name = UpdateX, doc = "…", fixed(…), check = path, example = path,
///   schema = path)`:
///   also generates the update body `UpdateX` (`Clone`, `Debug`, `Default`,
///   `From<CreateX>`): every field but the `create_only` ones and the placement's
///   `tenant_id` (a record may change branch, not tenant), optional,
///   with the same key, rule, doc and column; a `nullable` or `null_clears` field becomes a patch
///   (`Option<Option<T>>`, `null` clears it); defaults are dropped. `fixed`, `check`,
///   `example` and `schema` are the update's own.
/// - `changes`: the body is a change; its `Columns` are only the fields sent (generated
///   update bodies are).
///
/// Field attributes, `#[field(...)]`: `rule = EXPR` (a `Field`: what the value must be),
/// `name = "jsonKey"` (default: the field name in camelCase), `nullable` (an `Option`
/// field that also accepts `null`), `default = EXPR` (a non-`Option` field that may be
/// left out), `flatten` (a nested `Declared` struct whose fields sit in this object),
/// `skip` (not read; `Default`), `zero_none` (`0` read as none), `column` or
/// `column = "name"` (stored in that column: the body implements `Columns`, the values
/// a create inserts or an update changes) with, where the column holds the value
/// otherwise than its type writes itself, `integer` (a flag as 0 or 1) or `json` (its
/// JSON text), `create_only` (not in the generated update),
/// `null_clears` (an `Option<T>` the create reads without `null`, whose generated update
/// takes `null` to clear it).
/// A field of type `T` is required, `Option<T>` optional, `Option<Option<T>>` optional
/// and nullable (a PATCH that may clear it).
#[proc_macro_derive(Body, attributes(body, field))]
pub fn derive_body(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    body::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `Stored` for a record read straight from its table's row (with sqlx's
/// `FromRow`): the columns of its select, each a field.
///
/// Struct attribute: `#[stored(table = "queues", alias = "q")]` (the alias defaults to
/// the table). Field attributes: `#[stored(skip)]` (filled from elsewhere; `FromRow`
/// leaves it at its `Default` too), `#[stored(joined)]` (not a column of the table: read
/// from the row under its name, which the repository's own join selects). A column that
/// may hold `NULL` is read into an `Option<T>`, or an `OptionalRef<T>` where the answer
/// says 0 for none.
#[proc_macro_derive(Stored, attributes(stored))]
pub fn derive_stored(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    stored::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives sqlx's `FromRow` for a struct of named fields, over every sqlx database: each
/// field read from the column of its name.
///
/// Field attributes: `#[sqlx(rename = "column")]`, `#[sqlx(flatten)]` (a nested `FromRow`
/// struct read from the same row), `#[sqlx(skip)]` or `#[stored(skip)]` (not read: its
/// `Default`); `#[stored(joined)]` is read as any column, and another `#[stored]` field
/// attribute is refused.
#[proc_macro_derive(FromRow, attributes(sqlx))]
pub fn derive_from_row(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    row::derive_from_row(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives sqlx's `Type`, `Encode`, `Decode` and PostgreSQL's array type for a newtype
/// (`struct TenantId(i64)`), as its inner type: stored and bound as the number it wraps.
#[proc_macro_derive(SqlNewtype)]
pub fn derive_sql_newtype(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    row::derive_sql_newtype(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `FromQuery` and `DeclaredFilter` for the filters of a list.
///
/// Field attributes, `#[field(...)]`: `rule = EXPR` (a rule checking query text), `name`,
/// `flatten` (a nested filter). `Option<T>` fields are absent when not sent; other types
/// take their `Default`.
#[proc_macro_derive(Filter, attributes(field))]
pub fn derive_filter(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    filter::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `Listed` for a record its list answers: which fields sort it and by which
/// column, which columns `query` searches, and which filters the list takes.
///
/// Struct attributes, `#[list(...)]`: `filter = Type`, `table = "alias"` (prefix of every
/// column), `search("col", …)`, `search_index(table = "…", id = "…")`,
/// `per_page_alias = "name"`, `id = "column"` (an `id` sort the record does not answer),
/// `sort(field, …)`: the fields `sortBy` accepts, in the order messages and the document
/// list them; the first is the default and breaks ties.
/// Field attributes: `column = "column"` (when it is not the field's own name),
/// `name = "apiName"`, `alias = "otherName"` (a second name for the same sort).
#[proc_macro_derive(Listed, attributes(list))]
pub fn derive_listed(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    listed::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
