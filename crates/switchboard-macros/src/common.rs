//! What the three macros share: attribute options, doc comments and the
//! analysis of a function signature into parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, Ident, Lit, LitStr, Pat, Signature, Token, Type};

/// The kind of an option's value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `key = "text"`.
    Str,
    /// `key` or `key = true|false`.
    Flag,
    /// `key = "text"` or `key = ["text", ...]`.
    StrList,
}

/// One `key`, `key = "text"` or `key = bool` of an attribute.
pub(crate) struct Entry {
    key: Ident,
    value: Option<Lit>,
    /// `key = ["a", "b"]`: the strings (then `value` is `None`).
    list: Option<Vec<LitStr>>,
}

/// An attribute's arguments: leading string literals, then entries.
pub(crate) struct Options {
    pub(crate) positional: Vec<LitStr>,
    entries: Vec<Entry>,
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut positional = Vec::new();
        let mut entries = Vec::new();
        while !input.is_empty() {
            if input.peek(LitStr) {
                if !entries.is_empty() {
                    return Err(input.error("a string without a `key =` must come first"));
                }
                positional.push(input.parse()?);
            } else {
                let key = input.call(Ident::parse_any)?;
                let (mut value, mut list) = (None, None);
                if input.peek(Token![=]) {
                    input.parse::<Token![=]>()?;
                    if input.peek(syn::token::Bracket) {
                        let content;
                        syn::bracketed!(content in input);
                        let items = content.parse_terminated(|i| i.parse::<LitStr>(), Token![,])?;
                        list = Some(items.into_iter().collect());
                    } else {
                        value = Some(input.parse::<Lit>()?);
                    }
                }
                entries.push(Entry { key, value, list });
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(Options { positional, entries })
    }
}

impl Options {
    /// No arguments at all.
    pub(crate) fn empty() -> Self {
        Options { positional: Vec::new(), entries: Vec::new() }
    }

    /// Checks every entry against `allowed` (names and kinds) and that none
    /// repeats.
    pub(crate) fn check(&self, allowed: &[(&str, Kind)]) -> syn::Result<()> {
        let names: Vec<String> = allowed.iter().map(|(n, _)| format!("`{n}`")).collect();
        for (i, entry) in self.entries.iter().enumerate() {
            let key = entry.key.to_string();
            let Some((_, kind)) = allowed.iter().find(|(n, _)| *n == key) else {
                return Err(syn::Error::new(
                    entry.key.span(),
                    format!("unknown option `{key}`; expected one of {}", names.join(", ")),
                ));
            };
            if self.entries[..i].iter().any(|e| e.key == entry.key) {
                return Err(syn::Error::new(entry.key.span(), format!("`{key}` is given twice")));
            }
            if entry.list.is_some() && *kind != Kind::StrList {
                return Err(syn::Error::new(entry.key.span(), format!("`{key}` does not take a list")));
            }
            match (kind, &entry.value) {
                (Kind::Str | Kind::StrList, Some(Lit::Str(_))) | (Kind::Flag, None | Some(Lit::Bool(_))) => {}
                (Kind::StrList, None) if entry.list.is_some() => {}
                (Kind::StrList, Some(other)) => {
                    return Err(syn::Error::new(
                        other.span(),
                        format!("`{key}` takes a string or a list of strings"),
                    ));
                }
                (Kind::StrList, None) => {
                    return Err(syn::Error::new(
                        entry.key.span(),
                        format!("`{key}` needs a value: `{key} = \"...\"` or `{key} = [\"...\"]`"),
                    ));
                }
                (Kind::Str, Some(other)) => {
                    return Err(syn::Error::new(other.span(), format!("`{key}` takes a string")));
                }
                (Kind::Str, None) => {
                    return Err(syn::Error::new(
                        entry.key.span(),
                        format!("`{key}` needs a value: `{key} = \"...\"`"),
                    ));
                }
                (Kind::Flag, Some(other)) => {
                    return Err(syn::Error::new(other.span(), format!("`{key}` takes `true` or `false`")));
                }
            }
        }
        Ok(())
    }

    /// The string given for `key`.
    pub(crate) fn string(&self, key: &str) -> Option<LitStr> {
        self.entries.iter().find(|e| e.key == key).and_then(|e| match &e.value {
            Some(Lit::Str(s)) => Some(s.clone()),
            _ => None,
        })
    }

    /// The strings given for `key`: one for `key = "a"`, each for
    /// `key = ["a", "b"]`.
    pub(crate) fn strings(&self, key: &str) -> Option<Vec<LitStr>> {
        let entry = self.entries.iter().find(|e| e.key == key)?;
        match (&entry.list, &entry.value) {
            (Some(list), _) => Some(list.clone()),
            (None, Some(Lit::Str(s))) => Some(vec![s.clone()]),
            _ => None,
        }
    }

    /// The span of `key`, for errors about its value as a whole.
    pub(crate) fn key_span(&self, key: &str) -> Option<proc_macro2::Span> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.key.span())
    }

    /// A flag's value: `Some(true)` for a bare `key`.
    pub(crate) fn flag(&self, key: &str) -> Option<bool> {
        self.entries.iter().find(|e| e.key == key).map(|e| match &e.value {
            Some(Lit::Bool(b)) => b.value,
            _ => true,
        })
    }
}

/// An `Option<&str>` expression for an optional string.
pub(crate) fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    }
}

/// The doc comment of an item, with the one space after `///` removed and
/// outer blank lines trimmed; `None` when there is none.
pub(crate) fn doc_of(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) = &nv.value
        {
            let value = s.value();
            for line in value.split('\n') {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// What a parameter receives.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A value from the request: a tool argument, a template variable, a
    /// prompt argument.
    Value,
    /// The `RequestContext`.
    Context,
    /// The `ReadRequest` (resources only).
    Request,
}

/// One parameter of the annotated function.
pub(crate) struct Param {
    /// As written (may be raw, `r#type`).
    pub(crate) ident: Ident,
    /// On the wire (`type`).
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) role: Role,
    /// `&RequestContext` or `&ReadRequest` (passed borrowed).
    pub(crate) by_ref: bool,
    /// From `#[arg(description = "...")]`.
    pub(crate) description: Option<String>,
    /// `#[serde(...)]` and `#[schemars(...)]` written on the parameter, for
    /// the field of a tool's argument struct.
    pub(crate) field_attrs: Vec<Attribute>,
}

impl Param {
    /// A local variable that holds this parameter's value in generated code
    /// (cannot shadow the function being called).
    pub(crate) fn local(&self) -> Ident {
        format_ident!("__mcp_{}", self.name)
    }
}

/// Where a function sits, which decides what its receiver may be.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A free function: no `self`.
    Free,
    /// A method inside `#[tools]`: `&self`.
    Method,
}

/// The last path segment's name of a type (`RequestContext` for
/// `switchboard_server::RequestContext`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Group(g) => type_name(&g.elem),
        Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// `#[serde(...)]` or `#[schemars(...)]` on a parameter.
fn is_field_attr(attr: &Attribute) -> bool {
    attr.path().is_ident("serde") || attr.path().is_ident("schemars")
}

/// Parses `#[arg(description = "...")]` and removes every `#[arg]` from
/// `attrs`.
fn take_arg_attrs(attrs: &mut Vec<Attribute>) -> syn::Result<Option<String>> {
    let mut description = None;
    let mut result = Ok(());
    attrs.retain(|attr| {
        if !attr.path().is_ident("arg") {
            return true;
        }
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("description") {
                let s: LitStr = meta.value()?.parse()?;
                description = Some(s.value());
                Ok(())
            } else {
                Err(meta.error("unknown `arg` option; expected `description = \"...\"`"))
            }
        });
        if let Err(e) = parsed {
            result = Err(e);
        }
        false
    });
    result.map(|()| description)
}

/// Adds `e` to the errors collected so far.
pub(crate) fn push_error(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

/// Checks that `sig` is one the macro `what` supports (async, no generics,
/// a return type, plain named parameters of owned types, the right
/// receiver) and returns its parameters. Strips `#[arg]` attributes from
/// the signature.
pub(crate) fn analyze(
    sig: &mut Signature,
    what: &str,
    place: Place,
    request_allowed: bool,
) -> syn::Result<Vec<Param>> {
    let mut errors = None;
    if sig.asyncness.is_none() {
        push_error(&mut errors, syn::Error::new(sig.fn_token.span, format!("#[{what}] needs an `async fn`")));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        push_error(
            &mut errors,
            syn::Error::new_spanned(&sig.generics, format!("#[{what}] functions cannot be generic")),
        );
    }
    if let Some(v) = &sig.variadic {
        push_error(&mut errors, syn::Error::new_spanned(v, "variadic parameters are not supported"));
    }
    if let Some(unsafety) = &sig.unsafety {
        push_error(
            &mut errors,
            syn::Error::new_spanned(unsafety, format!("#[{what}] functions cannot be `unsafe`")),
        );
    }
    if let Some(abi) = &sig.abi {
        push_error(
            &mut errors,
            syn::Error::new_spanned(abi, format!("#[{what}] functions cannot be `extern`")),
        );
    }
    if let Some(constness) = &sig.constness {
        push_error(
            &mut errors,
            syn::Error::new_spanned(constness, format!("#[{what}] functions cannot be `const`")),
        );
    }
    if matches!(sig.output, syn::ReturnType::Default) {
        push_error(
            &mut errors,
            syn::Error::new(
                sig.ident.span(),
                format!("#[{what}] functions must return a `Result` (add `-> Result<..., ...>`)"),
            ),
        );
    }
    let mut params = Vec::new();
    let (mut context_seen, mut request_seen) = (false, false);
    for input in &mut sig.inputs {
        match input {
            FnArg::Receiver(r) => match place {
                Place::Free => push_error(
                    &mut errors,
                    syn::Error::new_spanned(
                        &*r,
                        format!(
                            "`self` is only allowed on #[{what}] methods inside an `impl` block \
                             marked `#[switchboard_server::tools]`"
                        ),
                    ),
                ),
                Place::Method => {
                    if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some() {
                        push_error(
                            &mut errors,
                            syn::Error::new_spanned(&*r, format!("#[{what}] methods take `&self`")),
                        );
                    }
                }
            },
            FnArg::Typed(pt) => {
                // `#[serde(...)]` and `#[schemars(...)]` go on the generated
                // field (tools only: `analyze`'s callers reject them elsewhere).
                let field_attrs: Vec<Attribute> =
                    pt.attrs.iter().filter(|a| is_field_attr(a)).cloned().collect();
                pt.attrs.retain(|a| !is_field_attr(a));
                let description = match take_arg_attrs(&mut pt.attrs) {
                    Ok(d) => d,
                    Err(e) => {
                        push_error(&mut errors, e);
                        None
                    }
                };
                let ident = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
                    other => {
                        push_error(
                            &mut errors,
                            syn::Error::new_spanned(
                                other,
                                "unsupported parameter pattern: use a plain name, like `city: String`",
                            ),
                        );
                        continue;
                    }
                };
                // The context and the read request may be borrowed; values
                // are decoded from the request, so they are owned.
                let (named, by_ref) = match &*pt.ty {
                    Type::Reference(r) if r.mutability.is_none() => (type_name(&r.elem), true),
                    ty => (type_name(ty), false),
                };
                let role = match named.as_deref() {
                    Some("RequestContext") => Role::Context,
                    Some("ReadRequest") if request_allowed => Role::Request,
                    _ => Role::Value,
                };
                if role == Role::Value {
                    let problem = match &*pt.ty {
                        Type::Reference(_) => Some(
                            "parameters must be owned types (`String`, not `&str`): the values are \
                             decoded from the request",
                        ),
                        Type::ImplTrait(_) | Type::Infer(_) => Some(
                            "parameters need a concrete type (not `impl Trait` or `_`): the request is decoded into it",
                        ),
                        _ => None,
                    };
                    if let Some(problem) = problem {
                        push_error(&mut errors, syn::Error::new_spanned(&pt.ty, problem));
                        continue;
                    }
                }
                let seen = match role {
                    Role::Context => Some(&mut context_seen),
                    Role::Request => Some(&mut request_seen),
                    Role::Value => None,
                };
                if let Some(seen) = seen {
                    if *seen {
                        push_error(
                            &mut errors,
                            syn::Error::new(pt.ty.span(), "only one parameter of this type is allowed"),
                        );
                    }
                    *seen = true;
                }
                if role != Role::Value && description.is_some() {
                    push_error(
                        &mut errors,
                        syn::Error::new(
                            ident.span(),
                            "`#[arg]` only applies to parameters the client supplies",
                        ),
                    );
                }
                let name = ident.unraw().to_string();
                if role != Role::Value
                    && let Some(attr) = field_attrs.first()
                {
                    push_error(
                        &mut errors,
                        syn::Error::new_spanned(
                            attr,
                            "this attribute only applies to parameters the client supplies",
                        ),
                    );
                }
                params.push(Param {
                    ident,
                    name,
                    ty: (*pt.ty).clone(),
                    role,
                    by_ref,
                    description,
                    field_attrs,
                });
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(params),
    }
}

/// The arguments of the call to the user's function: each parameter's
/// local, with the context and request passed by the names given.
pub(crate) fn call_args(params: &[Param], ctx: &Ident, req: Option<&Ident>) -> Vec<TokenStream> {
    params
        .iter()
        .map(|p| match p.role {
            Role::Context if p.by_ref => quote!(&#ctx),
            Role::Context => quote!(#ctx),
            Role::Request if p.by_ref => quote!(&#req),
            Role::Request => quote!(#req),
            Role::Value => {
                let local = p.local();
                quote!(#local)
            }
        })
        .collect()
}

/// The name of a generated builder function, `{fn}_{suffix}`.
pub(crate) fn builder_name(ident: &Ident, suffix: &str) -> Ident {
    Ident::new(&format!("{}_{suffix}", ident.unraw()), ident.span())
}

/// Removes every `#[arg]` attribute from the parameters (for the output
/// when expansion failed, so the error is not followed by "cannot find
/// attribute `arg`").
pub(crate) fn strip_arg_attrs(sig: &mut Signature) {
    for input in &mut sig.inputs {
        if let FnArg::Typed(pt) = input {
            pt.attrs.retain(|a| !a.path().is_ident("arg") && !is_field_attr(a));
        }
    }
}

/// The function as (now) written followed by what the macro added, or by
/// the error.
pub(crate) fn finish_fn(mut item: syn::ItemFn, added: syn::Result<TokenStream>) -> TokenStream {
    let added = added.unwrap_or_else(|e| {
        strip_arg_attrs(&mut item.sig);
        e.into_compile_error()
    });
    quote!(#item #added)
}

/// The span of a function's return type (of its name when it has none),
/// for errors about what the function returns.
pub(crate) fn output_span(sig: &Signature) -> proc_macro2::Span {
    match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.span(),
        syn::ReturnType::Default => sig.ident.span(),
    }
}

/// The `#[cfg(...)]` attributes of an item, for what the macro generates
/// from it (which must exist exactly when the item does).
pub(crate) fn cfg_attrs(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).collect()
}

/// Fails on `#[serde]`/`#[schemars]` parameter attributes, which only tools
/// use (their arguments are a derived struct).
pub(crate) fn reject_field_attrs(params: &[Param], what: &str) -> syn::Result<()> {
    match params.iter().find_map(|p| p.field_attrs.first()) {
        Some(attr) => Err(syn::Error::new_spanned(
            attr,
            format!(
                "#[{what}] parameters take only `#[arg(description = \"...\")]`; `#[serde]` and `#[schemars]` are for #[tool] parameters"
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_comments_keep_paragraphs_and_lose_the_leading_space() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// First line.
            ///   indented
            ///
            /// Second paragraph.
            #[inline]
            fn f() {}
        };
        assert_eq!(doc_of(&item.attrs).as_deref(), Some("First line.\n  indented\n\nSecond paragraph."));
        let bare: syn::ItemFn = syn::parse_quote! { fn f() {} };
        assert_eq!(doc_of(&bare.attrs), None);
    }

    #[test]
    fn options_parse_positional_strings_flags_and_values() {
        let options: Options = syn::parse_quote!("a://{x}", name = "n", read_only, open_world = false);
        assert_eq!(options.positional.len(), 1);
        options.check(&[("name", Kind::Str), ("read_only", Kind::Flag), ("open_world", Kind::Flag)]).unwrap();
        assert_eq!(options.string("name").unwrap().value(), "n");
        assert_eq!(options.flag("read_only"), Some(true));
        assert_eq!(options.flag("open_world"), Some(false));
        assert_eq!(options.flag("idempotent"), None);
    }

    #[test]
    fn options_reject_unknown_keys_repeats_and_wrong_kinds() {
        let allowed = [("name", Kind::Str), ("read_only", Kind::Flag)];
        for (options, message) in [
            (quote!(title = "x"), "unknown option `title`"),
            (quote!(name = "a", name = "b"), "`name` is given twice"),
            (quote!(name), "`name` needs a value"),
            (quote!(name = 3), "`name` takes a string"),
            (quote!(read_only = "yes"), "`read_only` takes `true` or `false`"),
        ] {
            let options: Options = syn::parse2(options).unwrap();
            let error = options.check(&allowed).expect_err("rejected").to_string();
            assert!(error.contains(message), "{error}");
        }
        assert!(syn::parse2::<Options>(quote!(name = "a", "late")).is_err());
    }

    #[test]
    fn signatures_yield_parameters_by_role() {
        let mut item: syn::ItemFn = syn::parse_quote! {
            async fn f(#[arg(description = "D")] r#type: String, ctx: switchboard_server::RequestContext, req: ReadRequest)
                -> Result<String, E> { todo!() }
        };
        let params = analyze(&mut item.sig, "resource", Place::Free, true).unwrap();
        let roles: Vec<_> = params.iter().map(|p| (p.name.as_str(), p.role)).collect();
        assert!(roles == [("type", Role::Value), ("ctx", Role::Context), ("req", Role::Request)]);
        assert_eq!(params[0].description.as_deref(), Some("D"));
        assert_eq!(params[0].local().to_string(), "__mcp_type");
        // `#[arg]` is gone from the function as emitted.
        let FnArg::Typed(first) = &item.sig.inputs[0] else { unreachable!() };
        assert!(first.attrs.is_empty());
        // Outside resources, `ReadRequest` is an ordinary value.
        let params = analyze(&mut item.sig, "tool", Place::Free, false).unwrap();
        assert!(params[2].role == Role::Value);
    }
}
