//! `#[derive(Body)]`: the reader of a JSON body and its schema, from one declaration.

use crate::syntax::*;

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
    vis: syn::Visibility,
    ty: Type,
    key: String,
    /// Whether the key was named (`name = "…"`) rather than derived from the field.
    named: bool,
    /// The field's doc attributes, as written (an update body repeats them).
    doc_attrs: Vec<Attribute>,
    doc: Option<String>,
    rule: Option<Expr>,
    mode: Mode,
    /// `0` is read as `null` (none), as answers write an absent reference.
    zero_none: bool,
    /// The column the field is stored in (`#[field(column)]`), if it is one.
    column: Option<String>,
    /// How the column holds the value (`#[field(column, integer)]`, `#[field(column, json)]`).
    stored_as: StoredAs,
    /// Left out of the generated update body (`#[field(create_only)]`).
    create_only: bool,
    /// An optional field the create reads without `null` whose generated update takes
    /// `null` to clear it (`#[field(null_clears)]`).
    null_clears: bool,
}

/// How a column field's value is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StoredAs {
    /// As the field's type writes itself (`ToColumn`).
    Value,
    /// A flag as 0 or 1 in an integer column (`integer`): the schema's flags but call
    /// outcomes' are integers on both backends, and PostgreSQL refuses a boolean there.
    Integer,
    /// As its JSON text in a text column (`json`).
    Json,
}

impl StoredAs {
    /// The attribute that states it, as an update body repeats it.
    fn attribute(self) -> Option<Tokens> {
        match self {
            StoredAs::Value => None,
            StoredAs::Integer => Some(quote!(integer)),
            StoredAs::Json => Some(quote!(json)),
        }
    }
}

/// The update body a create body generates (`#[body(update(...))]`).
struct UpdateDecl {
    name: Ident,
    fixed: Vec<(String, LitStr)>,
    doc: Option<LitStr>,
    check: Option<Path>,
    example: Option<Path>,
    schema: Option<Path>,
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
    update: Option<UpdateDecl>,
    /// The body is a change (`#[body(changes)]`): its columns are the fields sent.
    changes: bool,
}

/// Reads `fixed(jsonKey = "message", …)`.
fn fixed_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Vec<(String, LitStr)>> {
    let mut fixed = Vec::new();
    meta.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .ok_or_else(|| inner.error("expected a key"))?;
        fixed.push((key, lit_str(&inner)?));
        Ok(())
    })?;
    Ok(fixed)
}

fn body_decl(input: &DeriveInput) -> syn::Result<BodyDecl> {
    let mut decl = BodyDecl::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("body")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("require") {
                decl.require.extend(name_list(&meta)?);
                Ok(())
            } else if meta.path.is_ident("fixed") {
                decl.fixed.extend(fixed_list(&meta)?);
                Ok(())
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
            } else if meta.path.is_ident("update") {
                let mut name = None;
                let mut fixed = Vec::new();
                let mut update_doc = None;
                let mut check = None;
                let mut example = None;
                let mut schema = None;
                meta.parse_nested_meta(|inner| {
                    if inner.path.is_ident("name") {
                        name = Some(inner.value()?.parse::<Ident>()?);
                    } else if inner.path.is_ident("fixed") {
                        fixed.extend(fixed_list(&inner)?);
                    } else if inner.path.is_ident("doc") {
                        update_doc = Some(lit_str(&inner)?);
                    } else if inner.path.is_ident("check") {
                        check = Some(inner.value()?.parse()?);
                    } else if inner.path.is_ident("example") {
                        example = Some(inner.value()?.parse()?);
                    } else if inner.path.is_ident("schema") {
                        schema = Some(inner.value()?.parse()?);
                    } else {
                        return Err(inner.error("unknown update attribute"));
                    }
                    Ok(())
                })?;
                let name = name.ok_or_else(|| meta.error("update(...) needs `name = UpdateX`"))?;
                decl.update = Some(UpdateDecl {
                    name,
                    fixed,
                    doc: update_doc,
                    check,
                    example,
                    schema,
                });
                Ok(())
            } else if meta.path.is_ident("changes") {
                decl.changes = true;
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
    let mut named = false;
    let mut column = None;
    let mut stored_as = StoredAs::Value;
    let mut create_only = false;
    let mut null_clears = false;
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
                named = true;
            } else if meta.path.is_ident("column") {
                column = Some(if meta.input.peek(syn::Token![=]) {
                    lit_str(&meta)?.value()
                } else {
                    let name = ident.to_string();
                    name.strip_prefix("r#").unwrap_or(&name).to_owned()
                });
            } else if meta.path.is_ident("integer") || meta.path.is_ident("json") {
                if stored_as != StoredAs::Value {
                    return Err(meta.error("a column holds its value one way: integer or json"));
                }
                stored_as = if meta.path.is_ident("integer") {
                    StoredAs::Integer
                } else {
                    StoredAs::Json
                };
            } else if meta.path.is_ident("create_only") {
                create_only = true;
            } else if meta.path.is_ident("null_clears") {
                null_clears = true;
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
    if null_clears && !matches!(mode, Mode::Optional) {
        return Err(syn::Error::new_spanned(
            &ident,
            "null_clears is for an Option<T> the create reads without null",
        ));
    }
    if null_clears && zero_none {
        // The create would read 0 as none and the update 0 as "clear it": one of them
        // surprises a client; a reference that takes 0 is an `OptionalRef` instead.
        return Err(syn::Error::new_spanned(
            &ident,
            "null_clears and zero_none together: use OptionalRef for a reference 0 clears",
        ));
    }
    if stored_as != StoredAs::Value && column.is_none() {
        return Err(syn::Error::new_spanned(
            &ident,
            "integer and json say how a column holds the field: add column",
        ));
    }
    if column.is_some() && matches!(mode, Mode::Skip | Mode::Flatten) {
        return Err(syn::Error::new_spanned(
            &ident,
            "a skipped or flattened field is not a column",
        ));
    }
    Ok(FieldDecl {
        ident,
        vis: field.vis.clone(),
        ty: field.ty.clone(),
        key,
        named,
        doc_attrs: field
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .cloned()
            .collect(),
        doc: doc(&field.attrs),
        rule,
        mode,
        zero_none,
        column,
        stored_as,
        create_only,
        null_clears,
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
    for f in &fields {
        // In a create, an absent value would be stored as the text `null`, not as SQL's
        // NULL (a change writes only what was sent, so its optional fields are fine).
        let always_there = matches!(f.mode, Mode::Required | Mode::Defaulted(_));
        if f.stored_as == StoredAs::Json && !decl.changes && !always_there {
            return Err(syn::Error::new_spanned(
                &f.ident,
                "json is for a field the create always has (required or defaulted)",
            ));
        }
    }
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
                properties
                    .push(quote!(#d::merge(&mut object, <#ty as #d::Declared>::object_schema());));
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
    let columns = columns(&fields, decl.changes).map(|pushes| {
        quote! {
            impl #impl_generics #d::Columns for #name #ty_generics #where_clause {
                fn columns(&self) -> ::std::vec::Vec<(&'static str, #d::ColumnValue)> {
                    let mut out = ::std::vec::Vec::new();
                    #(#pushes)*
                    out
                }
            }
        }
    });
    let update = match &decl.update {
        Some(update) => update_body(input, &decl, update, &fields)?,
        None => Tokens::new(),
    };
    Ok(quote! {
        #columns
        #update

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

/// The pushes of `Columns::columns`, one per column field; `None` when no field is a
/// column. In a change (`changes`) an optional field is written only when sent.
fn columns(fields: &[FieldDecl], changes: bool) -> Option<Vec<Tokens>> {
    let d = quote!(::switchboard_domain::declare);
    let pushes: Vec<Tokens> = fields
        .iter()
        .filter_map(|f| {
            let column = f.column.as_ref()?;
            let ident = &f.ident;
            let sent_only = changes && matches!(f.mode, Mode::Optional | Mode::Patch);
            let write = match f.stored_as {
                StoredAs::Value => quote!(#d::ToColumn::to_column),
                StoredAs::Integer => quote!(#d::ToIntegerColumn::to_integer_column),
                StoredAs::Json => quote!(#d::json_column),
            };
            Some(if sent_only {
                quote! {
                    if let ::core::option::Option::Some(value) = &self.#ident {
                        out.push((#column, #write(value)));
                    }
                }
            } else {
                quote!(out.push((#column, #write(&self.#ident)));)
            })
        })
        .collect();
    (!pushes.is_empty()).then_some(pushes)
}

/// The update body of a create body: every field optional, with the same key, rule, doc
/// and column; a nullable field, or one marked `null_clears`, becomes a patch (`null`
/// clears it); defaults are dropped;
/// `create_only` fields and the placement's `tenantId` (a record stays in its tenant; a
/// branch may change) are left out. The struct is emitted with `Clone`, `Debug` and
/// `Default`, derived as a `changes` body, with `From` the create (every field sent).
fn update_body(
    input: &DeriveInput,
    decl: &BodyDecl,
    update: &UpdateDecl,
    fields: &[FieldDecl],
) -> syn::Result<Tokens> {
    let placed_in_tenant = decl.placement.iter().any(|p| p == "tenant");
    let mut declared = Vec::new();
    let mut emitted = Vec::new();
    let mut sent = Vec::new();
    for f in fields {
        if f.create_only || (placed_in_tenant && f.ident == "tenant_id") {
            continue;
        }
        let ty = &f.ty;
        let ty = match &f.mode {
            Mode::Required | Mode::Defaulted(_) => quote!(::core::option::Option<#ty>),
            Mode::Optional if f.null_clears => quote!(::core::option::Option<#ty>),
            Mode::Optional | Mode::Patch => quote!(#ty),
            Mode::NullableOnce => quote!(::core::option::Option<#ty>),
            Mode::Skip => continue,
            Mode::Flatten => {
                return Err(syn::Error::new_spanned(
                    &f.ident,
                    "a flattened field has no update: mark it #[field(create_only)]",
                ));
            }
        };
        let mut attrs = Vec::new();
        if let Some(rule) = &f.rule {
            attrs.push(quote!(rule = #rule));
        }
        if f.named {
            let key = &f.key;
            attrs.push(quote!(name = #key));
        }
        if f.zero_none {
            attrs.push(quote!(zero_none));
        }
        if let Some(column) = &f.column {
            attrs.push(quote!(column = #column));
        }
        attrs.extend(f.stored_as.attribute());
        let docs = &f.doc_attrs;
        let vis = &f.vis;
        let ident = &f.ident;
        sent.push(match &f.mode {
            Mode::Optional if f.null_clears => {
                quote!(#ident: body.#ident.map(::core::option::Option::Some))
            }
            Mode::Optional | Mode::Patch => quote!(#ident: body.#ident),
            _ => quote!(#ident: ::core::option::Option::Some(body.#ident)),
        });
        declared.push(quote!(#(#docs)* #[field(#(#attrs),*)] #vis #ident: #ty));
        emitted.push(quote!(#(#docs)* #vis #ident: #ty));
    }
    let mut body = vec![quote!(changes)];
    if !update.fixed.is_empty() {
        let fixed = update.fixed.iter().map(|(key, message)| {
            let key = Ident::new(key, proc_macro2::Span::call_site());
            quote!(#key = #message)
        });
        body.push(quote!(fixed(#(#fixed),*)));
    }
    if let Some(check) = &update.check {
        body.push(quote!(check = #check));
    }
    if let Some(example) = &update.example {
        body.push(quote!(example = #example));
    }
    if let Some(schema) = &update.schema {
        body.push(quote!(schema = #schema));
    }
    let name = &update.name;
    let vis = &input.vis;
    let doc = match &update.doc {
        Some(doc) => doc.value(),
        None => format!(
            "The changes to a `{}`: fields not sent stay unchanged.",
            input.ident
        ),
    };
    let declared: DeriveInput = syn::parse2(quote! {
        #[doc = #doc]
        #[body(#(#body),*)]
        #vis struct #name { #(#declared,)* }
    })?;
    let impls = derive(&declared)?;
    let create = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, Default)]
        #vis struct #name { #(#emitted,)* }
        #impls

        impl #impl_generics ::core::convert::From<#create #ty_generics> for #name #ty_generics #where_clause {
            /// The create as a change setting every field it sent.
            fn from(body: #create #ty_generics) -> Self {
                Self { #(#sent,)* }
            }
        }
    })
}
