//! What every derive reads of its input, shared: a struct's named fields, doc comments,
//! names in camelCase, `Option`'s inner type, attribute values and lists — with the
//! parsing and quoting items the derives use, so each derive file takes them from here.

pub(crate) use proc_macro2::TokenStream as Tokens;
pub(crate) use quote::{format_ident, quote};
pub(crate) use syn::meta::ParseNestedMeta;
pub(crate) use syn::{
    Attribute, Data, DeriveInput, Expr, Fields, GenericArgument, Ident, LitStr, Path,
    PathArguments, Type,
};

/// The named fields of a struct, or an error pointing at what is not one.
pub(crate) fn named_fields(input: &DeriveInput) -> syn::Result<Vec<&syn::Field>> {
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
pub(crate) fn doc(attrs: &[Attribute]) -> Option<String> {
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
pub(crate) fn camel_case(ident: &Ident) -> String {
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
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
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
pub(crate) fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// Reads a parenthesised list of identifiers or string literals (`exclusive(a, "b")`).
pub(crate) fn name_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
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
pub(crate) fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = content.parse_terminated(|p| p.parse::<LitStr>(), syn::Token![,])?;
    Ok(list.iter().map(LitStr::value).collect())
}

/// `Some(value)` or `None`, as tokens of an `Option<&str>`.
pub(crate) fn option_tokens(value: &Option<String>) -> Tokens {
    match value {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}
