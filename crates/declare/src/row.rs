//! `#[derive(FromRow)]`: sqlx's `FromRow` for a struct read from a row, over any of sqlx's
//! databases, and `#[derive(SqlNewtype)]`: sqlx's `Type`, `Encode` and `Decode` for a
//! newtype, as its inner type. Written here so that the build does not compile sqlx's own
//! derive macros, which bring a second, host copy of every database driver (the bundled
//! SQLite's C source included) for the compiler to run.

use crate::syntax::*;

/// How one field is read: from the column of its name, or of `#[sqlx(rename = "col")]`;
/// `#[sqlx(flatten)]`, a nested `FromRow` struct from the same row; `#[sqlx(skip)]` or
/// `#[stored(skip)]`, not read (filled from elsewhere: its `Default`). A
/// `#[stored(joined)]` field is read from the column of its name.
enum Read {
    Column(String),
    Flatten,
    Skip,
}

fn read_of(field: &syn::Field) -> syn::Result<Read> {
    let ident = field.ident.as_ref().expect("named field");
    let name = ident.to_string();
    let mut read = Read::Column(name.strip_prefix("r#").unwrap_or(&name).to_owned());
    for attr in &field.attrs {
        if attr.path().is_ident("sqlx") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("flatten") {
                    read = Read::Flatten;
                } else if meta.path.is_ident("skip") {
                    read = Read::Skip;
                } else if meta.path.is_ident("rename") {
                    read = Read::Column(lit_str(&meta)?.value());
                } else {
                    return Err(meta.error("unknown sqlx field attribute"));
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("stored") {
            // `Stored`'s own attributes: only `skip` concerns how the row is read (a
            // `joined` field is read from the row like any other).
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("skip") {
                    read = Read::Skip;
                } else if !meta.path.is_ident("joined") {
                    return Err(meta.error("unknown stored field attribute"));
                }
                Ok(())
            })?;
        }
    }
    Ok(read)
}

pub fn derive_from_row(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    // sqlx's struct attributes (`rename_all`, `default`) are not implemented: refused
    // here rather than read as a column that is not there when the row arrives.
    if let Some(attr) = input.attrs.iter().find(|a| a.path().is_ident("sqlx")) {
        return Err(syn::Error::new_spanned(
            attr,
            "FromRow takes no struct-level sqlx attribute; name each column on its field",
        ));
    }
    let mut generics = input.generics.clone();
    let (_, ty_generics, _) = input.generics.split_for_impl();
    generics.params.insert(0, syn::parse_quote!(R: ::sqlx::Row));
    generics.params.insert(0, syn::parse_quote!('__r));
    let predicates = &mut generics.make_where_clause().predicates;
    predicates.push(syn::parse_quote!(&'__r ::core::primitive::str: ::sqlx::ColumnIndex<R>));
    let mut reads = Vec::new();
    for field in named_fields(input)? {
        let ident = field.ident.as_ref().expect("named field");
        let ty = &field.ty;
        let value = match read_of(field)? {
            Read::Column(column) => {
                predicates.push(syn::parse_quote!(#ty: ::sqlx::Decode<'__r, R::Database>));
                predicates.push(syn::parse_quote!(#ty: ::sqlx::Type<R::Database>));
                quote!(::sqlx::Row::try_get(__row, #column)?)
            }
            Read::Flatten => {
                predicates.push(syn::parse_quote!(#ty: ::sqlx::FromRow<'__r, R>));
                quote!(<#ty as ::sqlx::FromRow<'__r, R>>::from_row(__row)?)
            }
            Read::Skip => quote!(::core::default::Default::default()),
        };
        reads.push(quote!(#ident: #value));
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::sqlx::FromRow<'__r, R> for #name #ty_generics #where_clause {
            fn from_row(__row: &'__r R) -> ::core::result::Result<Self, ::sqlx::Error> {
                ::core::result::Result::Ok(Self { #(#reads),* })
            }
        }
    })
}

pub fn derive_sql_newtype(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            name,
            "SqlNewtype is for a newtype struct",
        ));
    };
    let Fields::Unnamed(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(
            name,
            "SqlNewtype is for a newtype struct",
        ));
    };
    let mut fields = fields.unnamed.iter();
    let (Some(inner), None) = (fields.next(), fields.next()) else {
        return Err(syn::Error::new_spanned(
            name,
            "SqlNewtype is for a newtype struct",
        ));
    };
    let inner = &inner.ty;
    Ok(quote! {
        #[automatically_derived]
        impl<DB: ::sqlx::Database> ::sqlx::Type<DB> for #name where #inner: ::sqlx::Type<DB> {
            fn type_info() -> DB::TypeInfo {
                <#inner as ::sqlx::Type<DB>>::type_info()
            }

            fn compatible(ty: &DB::TypeInfo) -> bool {
                <#inner as ::sqlx::Type<DB>>::compatible(ty)
            }
        }

        #[automatically_derived]
        impl ::sqlx::postgres::PgHasArrayType for #name {
            fn array_type_info() -> ::sqlx::postgres::PgTypeInfo {
                <#inner as ::sqlx::postgres::PgHasArrayType>::array_type_info()
            }
        }

        #[automatically_derived]
        impl<'q, DB: ::sqlx::Database> ::sqlx::Encode<'q, DB> for #name
        where
            #inner: ::sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as ::sqlx::Database>::ArgumentBuffer,
            ) -> ::core::result::Result<::sqlx::encode::IsNull, ::sqlx::error::BoxDynError> {
                <#inner as ::sqlx::Encode<'q, DB>>::encode_by_ref(&self.0, buf)
            }

            fn produces(&self) -> ::core::option::Option<DB::TypeInfo> {
                <#inner as ::sqlx::Encode<'q, DB>>::produces(&self.0)
            }

            fn size_hint(&self) -> usize {
                <#inner as ::sqlx::Encode<'q, DB>>::size_hint(&self.0)
            }
        }

        #[automatically_derived]
        impl<'r, DB: ::sqlx::Database> ::sqlx::Decode<'r, DB> for #name
        where
            #inner: ::sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as ::sqlx::Database>::ValueRef<'r>,
            ) -> ::core::result::Result<Self, ::sqlx::error::BoxDynError> {
                <#inner as ::sqlx::Decode<'r, DB>>::decode(value).map(Self)
            }
        }
    })
}
