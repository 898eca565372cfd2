//! `#[boxed]`: an `async fn` whose future is boxed by the crate that defines it.
//!
//! rustc compiles an `async fn`'s body — its coroutine — in every crate that polls it
//! (a closure or coroutine body is always cross-crate inlinable), and a generic one in
//! every crate that instantiates it. Behind `Pin<Box<dyn Future>>` the body is compiled
//! once, where the box is made: the box's vtable names its `poll`. docs/benchmarks.md,
//! "Why an async body is compiled where it is polled".

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{
    FnArg, GenericArgument, GenericParam, ItemFn, Lifetime, LifetimeParam, PathArguments,
    ReturnType, Type, TypeParamBound, parse_quote,
};

/// The lifetime every borrowed argument, and so the boxed future, is given.
const LIFETIME: &str = "'boxed";

/// `async fn f(a: &A, b: B) -> R { … }` as `fn f<'boxed>(a: &'boxed A, b: B) ->
/// Pin<Box<dyn Future<Output = R> + Send + 'boxed>> { Box::pin(async move { … }) }`:
/// every elided lifetime of the arguments becomes `'boxed`, and every lifetime and type
/// parameter outlives it.
pub fn expand(mut item: ItemFn) -> syn::Result<TokenStream> {
    if item.sig.asyncness.take().is_none() {
        return Err(syn::Error::new_spanned(
            item.sig.fn_token,
            "#[boxed] goes on an `async fn`",
        ));
    }
    let life = Lifetime::new(LIFETIME, Span::call_site());
    for param in &mut item.sig.generics.params {
        match param {
            GenericParam::Lifetime(outer) => outer.bounds.push(life.clone()),
            GenericParam::Type(ty) => ty.bounds.push(TypeParamBound::Lifetime(life.clone())),
            GenericParam::Const(_) => {}
        }
    }
    item.sig
        .generics
        .params
        .insert(0, GenericParam::Lifetime(LifetimeParam::new(life.clone())));
    for input in &mut item.sig.inputs {
        match input {
            FnArg::Receiver(receiver) => {
                if let Some((_, lifetime)) = &mut receiver.reference
                    && elided(lifetime.as_ref())
                {
                    *lifetime = Some(life.clone());
                }
                bind(&mut receiver.ty, &life);
            }
            FnArg::Typed(typed) => bind(&mut typed.ty, &life),
        }
    }
    let output = match &item.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => quote!(#ty),
    };
    item.sig.output = parse_quote! {
        -> ::std::pin::Pin<::std::boxed::Box<
            dyn ::std::future::Future<Output = #output> + ::std::marker::Send + #life
        >>
    };
    let body = &item.block;
    item.block = parse_quote!({ ::std::boxed::Box::pin(async move #body) });
    Ok(quote!(#item))
}

/// Whether a reference's lifetime is left to elision (none, or `'_`).
fn elided(lifetime: Option<&Lifetime>) -> bool {
    lifetime.is_none_or(|lifetime| lifetime.ident == "_")
}

/// Gives every elided lifetime in `ty` the lifetime `life`, and an argument-position
/// `impl Trait` the bound that it outlives it.
fn bind(ty: &mut Type, life: &Lifetime) {
    match ty {
        Type::Reference(reference) => {
            if elided(reference.lifetime.as_ref()) {
                reference.lifetime = Some(life.clone());
            }
            bind(&mut reference.elem, life);
            // `&impl A + 'boxed` is ambiguous: `&(impl A + 'boxed)`.
            if let Type::ImplTrait(_) = *reference.elem {
                let elem =
                    std::mem::replace(&mut *reference.elem, Type::Verbatim(TokenStream::new()));
                *reference.elem = parse_quote!((#elem));
            }
        }
        Type::Path(path) => {
            if let Some(qself) = &mut path.qself {
                bind(&mut qself.ty, life);
            }
            for segment in &mut path.path.segments {
                if let PathArguments::AngleBracketed(arguments) = &mut segment.arguments {
                    for argument in &mut arguments.args {
                        match argument {
                            GenericArgument::Lifetime(lifetime) if lifetime.ident == "_" => {
                                *lifetime = life.clone();
                            }
                            GenericArgument::Type(inner) => bind(inner, life),
                            _ => {}
                        }
                    }
                }
            }
        }
        Type::ImplTrait(bounds) => bounds.bounds.push(TypeParamBound::Lifetime(life.clone())),
        Type::Slice(slice) => bind(&mut slice.elem, life),
        Type::Array(array) => bind(&mut array.elem, life),
        Type::Paren(paren) => bind(&mut paren.elem, life),
        Type::Group(group) => bind(&mut group.elem, life),
        Type::Tuple(tuple) => {
            for element in &mut tuple.elems {
                bind(element, life);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansion of `item`, with the spacing `quote` gives tokens.
    fn expanded(item: TokenStream) -> String {
        let item: ItemFn = syn::parse2(item).expect("a function");
        expand(item).expect("expanded").to_string()
    }

    #[test]
    fn every_elided_lifetime_becomes_the_futures() {
        let out = expanded(quote! {
            pub async fn f<'a, T: Record>(
                db: &Db, tx: &mut impl Reader, page: Page<'_>, name: &'a str, id: T,
            ) -> Result<T> { go(db, tx, page, name, id).await }
        });
        for part in [
            "pub fn f < 'boxed , 'a : 'boxed , T : Record + 'boxed >",
            "db : & 'boxed Db",
            "tx : & 'boxed mut (impl Reader + 'boxed)",
            "page : Page < 'boxed >",
            "name : & 'a str",
            "dyn :: std :: future :: Future < Output = Result < T > > + :: std :: marker :: Send + 'boxed",
            ":: std :: boxed :: Box :: pin (async move { go (db , tx , page , name , id) . await })",
        ] {
            assert!(out.contains(part), "{part}\nnot in\n{out}");
        }
        assert!(!out.contains("async fn"), "{out}");
    }

    #[test]
    fn a_method_borrows_its_receiver_for_the_future() {
        let out = expanded(quote! { pub async fn get(&self, id: i64) -> Result<Row> { todo!() } });
        assert!(
            out.contains("pub fn get < 'boxed > (& 'boxed self , id : i64)"),
            "{out}"
        );
    }

    #[test]
    fn only_an_async_fn_is_boxed() {
        let item: ItemFn = syn::parse2(quote! { fn f() {} }).expect("a function");
        let error = expand(item).expect_err("refused").to_string();
        assert_eq!(error, "#[boxed] goes on an `async fn`");
    }
}
