//! `#[derive(Stored)]`: the columns a record is read from, declared on the record.

use crate::syntax::*;

pub fn derive(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let mut table = None;
    let mut alias = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("stored")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("table") {
                table = Some(lit_str(&meta)?.value());
            } else if meta.path.is_ident("alias") {
                alias = Some(lit_str(&meta)?.value());
            } else {
                return Err(meta.error("unknown stored attribute"));
            }
            Ok(())
        })?;
    }
    let table = table.ok_or_else(|| {
        syn::Error::new_spanned(name, "a stored record needs #[stored(table = \"…\")]")
    })?;
    let alias = alias.unwrap_or_else(|| table.clone());
    let mut columns = Vec::new();
    for field in named_fields(input)? {
        let ident = field.ident.as_ref().expect("named field");
        let mut skip = false;
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("stored")) {
            attr.parse_nested_meta(|meta| {
                // `joined`: read from the row, but selected by the repository's own join.
                if meta.path.is_ident("skip") || meta.path.is_ident("joined") {
                    skip = true;
                } else {
                    return Err(meta.error("unknown stored field attribute"));
                }
                Ok(())
            })?;
        }
        if skip {
            continue;
        }
        let column = ident.to_string();
        let column = column.strip_prefix("r#").unwrap_or(&column).to_owned();
        columns.push(column);
    }
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::switchboard_domain::declare::Stored for #name #ty_generics #where_clause {
            const TABLE: &'static str = #table;
            const ALIAS: &'static str = #alias;
            const COLUMNS: &'static [&'static str] = &[#(#columns),*];
        }
    })
}
