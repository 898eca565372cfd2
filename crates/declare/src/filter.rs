//! `#[derive(Filter)]`: the reader of a list's query filters and their parameters.

use crate::syntax::*;

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
            tenant =
                quote!(#tenant.or_else(|| <#ty as #d::DeclaredFilter>::tenant_id(&self.#ident)));
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
