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
//!
//! The generated code names `::switchboard_domain`, whose `declare` module holds the
//! runtime half (the `Field` trait every rule implements, schema helpers).

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::meta::ParseNestedMeta;
use syn::{
    Attribute, Data, DeriveInput, Expr, Fields, GenericArgument, Ident, LitStr, Path,
    PathArguments, Type, parse_macro_input,
};

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
///
/// Field attributes, `#[field(...)]`: `rule = EXPR` (a `Field`: what the value must be),
/// `name = "jsonKey"` (default: the field name in camelCase), `nullable` (an `Option`
/// field that also accepts `null`), `default = EXPR` (a non-`Option` field that may be
/// left out), `flatten` (a nested `Declared` struct whose fields sit in this object),
/// `skip` (not read; `Default`). A field of type `T` is required, `Option<T>` optional,
/// `Option<Option<T>>` optional and nullable (a PATCH that may clear it).
#[proc_macro_derive(Body, attributes(body, field))]
pub fn derive_body(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    body::derive(&input)
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

/// The named fields of a struct, or an error pointing at what is not one.
fn named_fields(input: &DeriveInput) -> syn::Result<Vec<&syn::Field>> {
    match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(fields) => Ok(fields.named.iter().collect()),
            _ => Err(syn::Error::new_spanned(
                &input.ident,
                "only structs with named fields can be declared",
            )),
        },
        _ => Err(syn::Error::new_spanned(
            &input.ident,
            "only structs can be declared",
        )),
    }
}

/// The doc comment of an item, as utoipa writes descriptions: lines trimmed, joined.
fn doc(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().to_owned()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `tenant_id` → `tenantId`.
fn camel_case(ident: &Ident) -> String {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The type inside `Option<…>`, when `ty` is one.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(inner) => Some(inner),
        _ => None,
    }
}

/// Reads a string literal value of a nested meta item (`name = "x"`).
fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Reads a parenthesised list of identifiers or string literals (`exclusive(a, "b")`).
fn name_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let mut names = Vec::new();
    meta.parse_nested_meta(|inner| {
        let name = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .ok_or_else(|| inner.error("expected a name"))?;
        names.push(name);
        Ok(())
    })?;
    Ok(names)
}

/// Reads a parenthesised list of string literals (`search("a.b", "c")`).
fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
    Ok(list.iter().map(LitStr::value).collect())
}

fn option_tokens(value: &Option<String>) -> Tokens {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

mod body {
    use super::*;

    /// How a field is read.
    enum Mode {
        /// Must be present and not null.
        Required,
        /// May be absent (its default then); not null.
        Defaulted(Expr),
        /// `Option<T>`: may be absent; not null.
        Optional,
        /// `Option<T>` with `nullable`: absent or null is `None`.
        NullableOnce,
        /// `Option<Option<T>>`: absent `None`, null `Some(None)`.
        Patch,
        /// A nested declared struct whose fields sit in this object.
        Flatten,
        /// Not read.
        Skip,
    }

    struct FieldDecl {
        ident: Ident,
        ty: Type,
        key: String,
        doc: Option<String>,
        rule: Option<Expr>,
        mode: Mode,
        /// `0` is read as `null` (none), as answers write an absent reference.
        zero_none: bool,
    }

    #[derive(Default)]
    struct BodyDecl {
        require: Vec<String>,
        fixed: Vec<(String, LitStr)>,
        exclusive: Vec<Vec<String>>,
        check: Option<Path>,
        schema: Option<Path>,
        example: Option<Path>,
        placement: Vec<String>,
    }

    fn body_decl(input: &DeriveInput) -> syn::Result<BodyDecl> {
        let mut decl = BodyDecl::default();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("body")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("require") {
                    decl.require.extend(name_list(&meta)?);
                    Ok(())
                } else if meta.path.is_ident("fixed") {
                    meta.parse_nested_meta(|inner| {
                        let key = inner
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .ok_or_else(|| inner.error("expected a key"))?;
                        decl.fixed.push((key, lit_str(&inner)?));
                        Ok(())
                    })
                } else if meta.path.is_ident("exclusive") {
                    decl.exclusive.push(name_list(&meta)?);
                    Ok(())
                } else if meta.path.is_ident("check") {
                    decl.check = Some(meta.value()?.parse()?);
                    Ok(())
                } else if meta.path.is_ident("schema") {
                    decl.schema = Some(meta.value()?.parse()?);
                    Ok(())
                } else if meta.path.is_ident("example") {
                    decl.example = Some(meta.value()?.parse()?);
                    Ok(())
                } else if meta.path.is_ident("placement") {
                    decl.placement = name_list(&meta)?;
                    if let Some(other) = decl
                        .placement
                        .iter()
                        .find(|p| *p != "tenant" && *p != "branch")
                    {
                        return Err(meta.error(format!("unknown placement `{other}`")));
                    }
                    Ok(())
                } else {
                    Err(meta.error("unknown body attribute"))
                }
            })?;
        }
        Ok(decl)
    }

    fn field_decl(field: &syn::Field) -> syn::Result<FieldDecl> {
        let ident = field.ident.clone().expect("named field");
        let mut key = camel_case(&ident);
        let mut rule = None;
        let mut nullable = false;
        let mut zero_none = false;
        let mut default = None;
        let mut flatten = false;
        let mut skip = false;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("field")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rule") {
                    rule = Some(meta.value()?.parse::<Expr>()?);
                } else if meta.path.is_ident("name") {
                    key = lit_str(&meta)?.value();
                } else if meta.path.is_ident("nullable") {
                    nullable = true;
                } else if meta.path.is_ident("zero_none") {
                    zero_none = true;
                } else if meta.path.is_ident("default") {
                    default = Some(meta.value()?.parse::<Expr>()?);
                } else if meta.path.is_ident("flatten") {
                    flatten = true;
                } else if meta.path.is_ident("skip") {
                    skip = true;
                } else {
                    return Err(meta.error("unknown field attribute"));
                }
                Ok(())
            })?;
        }
        let outer = option_inner(&field.ty);
        let twice = outer.and_then(option_inner);
        let mode = if skip {
            Mode::Skip
        } else if flatten {
            Mode::Flatten
        } else if twice.is_some() {
            Mode::Patch
        } else if outer.is_some() && nullable {
            Mode::NullableOnce
        } else if outer.is_some() {
            Mode::Optional
        } else if let Some(default) = default {
            Mode::Defaulted(default)
        } else {
            Mode::Required
        };
        if rule.is_none() && !matches!(mode, Mode::Skip | Mode::Flatten) {
            return Err(syn::Error::new_spanned(
                &ident,
                "a declared field needs #[field(rule = …)]",
            ));
        }
        Ok(FieldDecl {
            ident,
            ty: field.ty.clone(),
            key,
            doc: doc(&field.attrs),
            rule,
            mode,
            zero_none,
        })
    }

    pub fn derive(input: &DeriveInput) -> syn::Result<Tokens> {
        let name = &input.ident;
        let name_str = name.to_string();
        let decl = body_decl(input)?;
        let fields = named_fields(input)?
            .into_iter()
            .map(field_decl)
            .collect::<syn::Result<Vec<_>>>()?;
        let d = quote!(::switchboard_domain::declare);
        let v = quote!(::switchboard_domain::validation);

        // The reader: struct-wide rules first, then every field (so every problem is
        // reported), then the value, then the rule across fields.
        let mut reads = Vec::new();
        for key in &decl.require {
            reads.push(quote! {
                if !r.has(#key) {
                    r.problem(#key, "is required");
                    intact = false;
                }
            });
        }
        for group in &decl.exclusive {
            let first = &group[0];
            for other in &group[1..] {
                let message = format!("must not be sent together with {first}");
                reads.push(quote! {
                    if r.has(#first) && !r.is_null(#first) && r.has(#other) && !r.is_null(#other) {
                        r.problem(#other, #message);
                        intact = false;
                    }
                });
            }
        }
        let mut builds = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let var = format_ident!("field_{}", i);
            let ident = &f.ident;
            let key = &f.key;
            let rule = &f.rule;
            let ty = &f.ty;
            match &f.mode {
                Mode::Required => {
                    reads.push(quote!(let #var = r.required(#key, &(#rule));));
                    builds.push(quote!(#ident: <#ty as ::core::convert::From<_>>::from(#var?)));
                }
                Mode::Defaulted(default) => {
                    reads.push(quote!(let #var = r.optional(#key, &(#rule));));
                    builds.push(quote!(#ident: match #var.ok()? {
                        ::core::option::Option::Some(v) => <#ty as ::core::convert::From<_>>::from(v),
                        ::core::option::Option::None => #default,
                    }));
                }
                Mode::Optional => {
                    let inner = option_inner(ty).expect("an Option");
                    reads.push(quote!(let #var = r.optional(#key, &(#rule));));
                    builds.push(
                        quote!(#ident: #var.ok()?.map(<#inner as ::core::convert::From<_>>::from)),
                    );
                }
                Mode::NullableOnce => {
                    let inner = option_inner(ty).expect("an Option");
                    let read = if f.zero_none {
                        quote!(nullable_or_zero)
                    } else {
                        quote!(nullable)
                    };
                    reads.push(quote!(let #var = r.#read(#key, &(#rule));));
                    builds.push(quote!(#ident: #var.ok()?.flatten().map(<#inner as ::core::convert::From<_>>::from)));
                }
                Mode::Patch => {
                    let inner = option_inner(ty)
                        .and_then(option_inner)
                        .expect("an Option of an Option");
                    let read = if f.zero_none {
                        quote!(nullable_or_zero)
                    } else {
                        quote!(nullable)
                    };
                    reads.push(quote!(let #var = r.#read(#key, &(#rule));));
                    builds.push(quote!(#ident: #var.ok()?.map(|v| v.map(<#inner as ::core::convert::From<_>>::from))));
                }
                Mode::Flatten => {
                    reads.push(quote!(let #var = <#ty as #d::Declared>::read_object(r);));
                    builds.push(quote!(#ident: #var?));
                }
                Mode::Skip => {
                    builds.push(quote!(#ident: ::core::default::Default::default()));
                }
            }
        }
        let placement_tenant = decl.placement.iter().any(|p| p == "tenant");
        let placement_branch = decl.placement.iter().any(|p| p == "branch");
        let check = decl.check.as_ref().map(|check| {
            quote! {
                if !#check(&value, r) {
                    return ::core::option::Option::None;
                }
            }
        });

        // The schema: each field's rule documents it, the struct-wide rules are added.
        let description = option_tokens(&doc(&input.attrs));
        let mut properties = Vec::new();
        let mut examples = Vec::new();
        let mut components = Vec::new();
        let mut left_out: Vec<String> = decl.fixed.iter().map(|(k, _)| k.clone()).collect();
        for group in &decl.exclusive {
            left_out.extend(group[1..].iter().cloned());
        }
        for f in &fields {
            let key = &f.key;
            let rule = &f.rule;
            let ty = &f.ty;
            let field_doc = option_tokens(&f.doc);
            let (required, nullable) = match f.mode {
                Mode::Required => (true, false),
                Mode::Defaulted(_) | Mode::Optional => (false, false),
                Mode::NullableOnce | Mode::Patch => (false, true),
                Mode::Flatten => {
                    properties.push(
                        quote!(#d::merge(&mut object, <#ty as #d::Declared>::object_schema());),
                    );
                    examples.push(quote!(example.extend(<#ty as #d::Declared>::example());));
                    components.push(quote!(<#ty as #d::Declared>::components(out);));
                    continue;
                }
                Mode::Skip => continue,
            };
            let schema = if f.zero_none {
                quote!(#d::or_zero(#v::Field::field_schema(&(#rule))))
            } else {
                quote!(#v::Field::field_schema(&(#rule)))
            };
            properties.push(quote! {
                #d::property(&mut object, #key, #schema, #v::Field::field_example(&(#rule)), #field_doc, #required, #nullable);
            });
            if !left_out.contains(key) {
                examples.push(quote! {
                    example.insert(#key.to_owned(), #v::Field::field_example(&(#rule)));
                });
            }
            components.push(quote!(#v::Field::components(&(#rule), out);));
        }
        if !decl.require.is_empty() {
            let keys = &decl.require;
            properties.push(quote!(#d::require(&mut object, &[#(#keys),*]);));
        }
        for (key, message) in &decl.fixed {
            properties.push(quote!(#d::fixed(&mut object, #key, #message);));
        }
        let fixed = decl
            .fixed
            .iter()
            .map(|(key, message)| quote!(#v::FixedField { key: #key, message: #message }));
        for group in &decl.exclusive {
            properties.push(quote!(#d::exclusive(&mut object, &[#(#group),*]);));
        }
        if let Some(schema) = &decl.schema {
            properties.push(quote!(#schema(&mut object);));
        }
        let example_body = match &decl.example {
            Some(example) => quote! {
                match #example() {
                    ::serde_json::Value::Object(map) => map,
                    _ => ::serde_json::Map::new(),
                }
            },
            None => quote! {
                let mut example = ::serde_json::Map::new();
                #(#examples)*
                example
            },
        };

        let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
        Ok(quote! {
            impl #impl_generics #d::Declared for #name #ty_generics #where_clause {
                fn read_object(r: &mut #v::ObjectReader<'_>) -> ::core::option::Option<Self> {
                    let mut intact = true;
                    #(#reads)*
                    let build = move || -> ::core::option::Option<Self> {
                        ::core::option::Option::Some(Self { #(#builds,)* })
                    };
                    let value = build()?;
                    if !intact {
                        return ::core::option::Option::None;
                    }
                    #check
                    ::core::option::Option::Some(value)
                }

                fn object_schema() -> ::utoipa::openapi::schema::Object {
                    let mut object = #d::object(#description);
                    #(#properties)*
                    object
                }

                fn example() -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                    #example_body
                }

                fn components(out: &mut ::std::vec::Vec<(::std::string::String, ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema>)>) {
                    #(#components)*
                }
            }

            impl #impl_generics #v::FromBody for #name #ty_generics #where_clause {
                const PLACEMENT: #v::Placement = #v::Placement {
                    tenant: #placement_tenant,
                    branch: #placement_branch,
                };
                const FIXED: &'static [#v::FixedField] = &[#(#fixed),*];
                fn from_body(body: &::serde_json::Value) -> ::core::result::Result<Self, #v::Problems> {
                    #d::read_body(body)
                }
                fn read_partial(body: &::serde_json::Value) -> (::core::option::Option<Self>, #v::Problems) {
                    #d::read_body_partial(body)
                }
                fn body_example() -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                    <Self as #d::Declared>::example()
                }
            }

            impl #impl_generics ::utoipa::PartialSchema for #name #ty_generics #where_clause {
                fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                    let mut object = <Self as #d::Declared>::object_schema();
                    // A whole body the reader accepts, as the document's example of it.
                    object.examples = ::std::vec![::serde_json::Value::Object(
                        <Self as #d::Declared>::example(),
                    )];
                    ::utoipa::openapi::RefOr::T(::utoipa::openapi::schema::Schema::Object(object))
                }
            }

            impl #impl_generics ::utoipa::ToSchema for #name #ty_generics #where_clause {
                fn name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#name_str)
                }

                fn schemas(out: &mut ::std::vec::Vec<(::std::string::String, ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema>)>) {
                    <Self as #d::Declared>::components(out);
                }
            }
        })
    }
}

mod filter {
    use super::*;

    pub fn derive(input: &DeriveInput) -> syn::Result<Tokens> {
        let name = &input.ident;
        let d = quote!(::switchboard_domain::declare);
        let v = quote!(::switchboard_domain::validation);
        let mut reads = Vec::new();
        let mut params = Vec::new();
        let mut tenant = quote!(::core::option::Option::None);
        for field in named_fields(input)? {
            let ident = field.ident.clone().expect("named field");
            let ty = &field.ty;
            let mut key = camel_case(&ident);
            let mut rule: Option<Expr> = None;
            let mut flatten = false;
            for attr in field.attrs.iter().filter(|a| a.path().is_ident("field")) {
                attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rule") {
                        rule = Some(meta.value()?.parse()?);
                    } else if meta.path.is_ident("name") {
                        key = lit_str(&meta)?.value();
                    } else if meta.path.is_ident("flatten") {
                        flatten = true;
                    } else {
                        return Err(meta.error("unknown field attribute"));
                    }
                    Ok(())
                })?;
            }
            if flatten {
                reads.push(quote!(#ident: <#ty as #d::DeclaredFilter>::read_query(q)));
                params.push(quote!(<#ty as #d::DeclaredFilter>::parameters(out);));
                tenant = quote!(#tenant.or_else(|| <#ty as #d::DeclaredFilter>::tenant_id(&self.#ident)));
                continue;
            }
            let Some(rule) = rule else {
                return Err(syn::Error::new_spanned(
                    &ident,
                    "a filter field needs #[field(rule = …)] or #[field(flatten)]",
                ));
            };
            let description = doc(&field.attrs).unwrap_or_default();
            match option_inner(ty) {
                Some(inner) => reads.push(quote! {
                    #ident: q.optional(#key, &(#rule)).map(<#inner as ::core::convert::From<_>>::from)
                }),
                None => reads.push(quote! {
                    #ident: q.optional(#key, &(#rule)).map(<#ty as ::core::convert::From<_>>::from).unwrap_or_default()
                }),
            }
            params.push(quote! {
                out.push(#d::query_parameter(#key, #description, ::utoipa::openapi::RefOr::T(#v::Rule::query_schema(&(#rule)))));
            });
            if ident == "tenant_id" {
                tenant = quote!(self.tenant_id.map(::core::convert::Into::into));
            }
        }
        Ok(quote! {
            impl #d::DeclaredFilter for #name {
                fn read_query(q: &mut #v::QueryReader<'_>) -> Self {
                    Self { #(#reads,)* }
                }

                fn parameters(out: &mut ::std::vec::Vec<::utoipa::openapi::path::Parameter>) {
                    #(#params)*
                }

                fn tenant_id(&self) -> ::core::option::Option<::switchboard_domain::ids::TenantId> {
                    #tenant
                }
            }

            impl #v::FromQuery for #name {
                fn from_query(
                    params: &::std::collections::HashMap<::std::string::String, ::std::string::String>,
                ) -> ::core::result::Result<Self, #v::Problems> {
                    #d::read_filter(params)
                }
            }
        })
    }
}

mod listed {
    use super::*;

    pub fn derive(input: &DeriveInput) -> syn::Result<Tokens> {
        let name = &input.ident;
        let mut filter: Option<Type> = None;
        let mut table: Option<String> = None;
        let mut search: Vec<String> = Vec::new();
        let mut search_index: Option<(String, String)> = None;
        let mut aliases: Vec<String> = Vec::new();
        let mut id_column: Option<String> = None;
        let mut sort_order: Vec<Ident> = Vec::new();
        for attr in input.attrs.iter().filter(|a| a.path().is_ident("list")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("id") {
                    id_column = Some(lit_str(&meta)?.value());
                } else if meta.path.is_ident("filter") {
                    filter = Some(meta.value()?.parse()?);
                } else if meta.path.is_ident("table") {
                    table = Some(lit_str(&meta)?.value());
                } else if meta.path.is_ident("search") {
                    search = string_list(&meta)?;
                } else if meta.path.is_ident("search_index") {
                    let (mut t, mut id) = (None, None);
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("table") {
                            t = Some(lit_str(&inner)?.value());
                        } else if inner.path.is_ident("id") {
                            id = Some(lit_str(&inner)?.value());
                        } else {
                            return Err(inner.error("expected table or id"));
                        }
                        Ok(())
                    })?;
                    match (t, id) {
                        (Some(t), Some(id)) => search_index = Some((t, id)),
                        _ => return Err(meta.error("search_index needs table and id")),
                    }
                } else if meta.path.is_ident("per_page_alias") {
                    aliases.push(lit_str(&meta)?.value());
                } else if meta.path.is_ident("sort") {
                    meta.parse_nested_meta(|inner| {
                        sort_order.push(inner.path.require_ident()?.clone());
                        Ok(())
                    })?;
                } else {
                    return Err(meta.error("unknown list attribute"));
                }
                Ok(())
            })?;
        }
        let filter = filter.ok_or_else(|| {
            syn::Error::new_spanned(name, "a listed record needs #[list(filter = …)]")
        })?;
        let qualify = |column: String| match &table {
            Some(t) if !column.contains('.') => format!("{t}.{column}"),
            _ => column,
        };
        let mut sorts: Vec<(String, String)> = Vec::new();
        if let Some(column) = &id_column {
            sorts.push(("id".to_owned(), column.clone()));
        }
        let fields = named_fields(input)?;
        for wanted in &sort_order {
            let field = fields
                .iter()
                .find(|f| f.ident.as_ref() == Some(wanted))
                .ok_or_else(|| syn::Error::new_spanned(wanted, "no such field to sort by"))?;
            let ident = field.ident.clone().expect("named field");
            let mut column = ident.to_string();
            let mut api_name = camel_case(&ident);
            let mut also: Vec<String> = Vec::new();
            for attr in field.attrs.iter().filter(|a| a.path().is_ident("list")) {
                attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("column") {
                        column = lit_str(&meta)?.value();
                    } else if meta.path.is_ident("name") {
                        api_name = lit_str(&meta)?.value();
                    } else if meta.path.is_ident("alias") {
                        also.push(lit_str(&meta)?.value());
                    } else {
                        return Err(meta.error("unknown list attribute"));
                    }
                    Ok(())
                })?;
            }
            let column = qualify(column);
            if id_column.is_some() && api_name == "id" {
                // `id = "column"` already put the id sort first, with its column.
                continue;
            }
            sorts.push((api_name, column.clone()));
            for alias in also {
                sorts.push((alias, column.clone()));
            }
        }
        for field in &fields {
            let marked = field.attrs.iter().any(|a| a.path().is_ident("list"));
            if marked && !sort_order.iter().any(|w| field.ident.as_ref() == Some(w)) {
                return Err(syn::Error::new_spanned(
                    field,
                    "#[list(...)] on a field that #[list(sort(...))] does not name",
                ));
            }
        }
        if let Some((twice, _)) = sorts
            .iter()
            .enumerate()
            .find_map(|(i, (n, _))| sorts[..i].iter().find(|(m, _)| m == n))
        {
            return Err(syn::Error::new_spanned(
                name,
                format!("`{twice}` is accepted by sortBy twice"),
            ));
        }
        if sorts.is_empty() {
            return Err(syn::Error::new_spanned(
                name,
                "a listed record needs #[list(sort(field, …))]",
            ));
        }
        let sort_fields = sorts
            .iter()
            .map(|(n, c)| quote!(::switchboard_domain::list::SortField { name: #n, column: #c }));
        let search = search.into_iter().map(qualify);
        let index = match search_index {
            Some((t, id)) => quote!(::core::option::Option::Some(
                ::switchboard_domain::list::SearchIndex { table: #t, id_column: #id }
            )),
            None => quote!(::core::option::Option::None),
        };
        let name_text = name.to_string();
        Ok(quote! {
            impl ::switchboard_domain::list::Listed for #name {
                type Filter = #filter;
                const NAME: &'static str = #name_text;
                const SPEC: &'static ::switchboard_domain::list::ListSpec =
                    &::switchboard_domain::list::ListSpec {
                        sort_fields: &[#(#sort_fields),*],
                        search_columns: &[#(#search),*],
                        search_index: #index,
                    };
                const PER_PAGE_ALIASES: &'static [&'static str] = &[#(#aliases),*];
            }
        })
    }
}
