//! `#[derive(Listed)]`: a listed record's sort whitelist, search columns and filter.

use crate::syntax::*;

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
