//! `#[tool]`: a tool whose input schema comes from the function's
//! parameters (free functions here, methods through `methods.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;

use crate::common::{self, Kind, Options, Param, Place, Role};

const OPTIONS: &[(&str, Kind)] = &[
    ("name", Kind::Str),
    ("title", Kind::Str),
    ("description", Kind::Str),
    ("read_only", Kind::Flag),
    ("destructive", Kind::Flag),
    ("idempotent", Kind::Flag),
    ("open_world", Kind::Flag),
    ("ui", Kind::Str),
    ("visibility", Kind::StrList),
];

fn check_options(options: &Options) -> syn::Result<()> {
    if let Some(extra) = options.positional.first() {
        return Err(syn::Error::new(extra.span(), "use `name = \"...\"` to rename a tool"));
    }
    options.check(OPTIONS)?;
    if let Some(name) = options.string("name") {
        check_tool_name(&name.value()).map_err(|reason| syn::Error::new(name.span(), reason))?;
    }
    if let Some(ui) = options.string("ui")
        && ui.value().strip_prefix("ui://").is_none_or(|rest| rest.is_empty())
    {
        return Err(syn::Error::new(
            ui.span(),
            "`ui` names a view by its `ui://` URI, e.g. \"ui://server/view\"",
        ));
    }
    if let Some(span) = options.key_span("visibility")
        && options.string("ui").is_none()
    {
        return Err(syn::Error::new(
            span,
            "`visibility` needs `ui = \"ui://…\"` (the view that calls the tool)",
        ));
    }
    Ok(())
}

/// `.ui(...)` and `.visibility(&[...])` for `ui = "ui://…"` and
/// `visibility = "app"` / `["model", "app"]`.
fn ui_calls(options: &Options) -> syn::Result<TokenStream> {
    let Some(ui) = options.string("ui") else { return Ok(TokenStream::new()) };
    let mut calls = quote!(.ui(#ui));
    if let Some(names) = options.strings("visibility") {
        let mut variants = Vec::with_capacity(names.len());
        for name in &names {
            let variant = match name.value().as_str() {
                "model" => quote!(Model),
                "app" => quote!(App),
                other => {
                    return Err(syn::Error::new(
                        name.span(),
                        format!("unknown visibility {other:?}: use \"model\" or \"app\""),
                    ));
                }
            };
            variants.push(quote!(::switchboard_server::apps::Visibility::#variant));
        }
        calls.extend(quote!(.visibility(&[#(#variants),*])));
    }
    Ok(calls)
}

/// The spec's rule for tool names: 1 to 128 of `[A-Za-z0-9_.-]` (checked
/// here so that a bad `name = "..."` fails at compile time, not when the
/// server is built).
fn check_tool_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err(format!("tool names have 1 to 128 characters, {name:?} has {}", name.len()));
    }
    match name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))) {
        Some(c) => Err(format!("{c:?} is not allowed in a tool name (only A-Z, a-z, 0-9, `_`, `.`, `-`)")),
        None => Ok(()),
    }
}

/// `#[tool]` on a free function: adds `{fn}_tool()`.
pub(crate) fn expand_fn(options: Options, item: &mut ItemFn) -> syn::Result<TokenStream> {
    let ident = item.sig.ident.clone();
    let body = build(&options, item, Place::Free, &quote!(#ident), None)?;
    let builder = common::builder_name(&ident, "tool");
    let doc = format!("The MCP tool built from `{ident}` by `#[tool]`.");
    let vis = &item.vis;
    let cfgs = common::cfg_attrs(&item.attrs);
    Ok(quote! {
        #(#cfgs)*
        #[doc = #doc]
        #vis fn #builder() -> ::switchboard_server::Tool {
            #body
        }
    })
}

/// Checks the function and returns the expression that builds the tool,
/// its handler calling `callee` (after `capture`, which runs in the handler
/// before each call).
pub(crate) fn build(
    options: &Options,
    item: &mut ItemFn,
    place: Place,
    callee: &TokenStream,
    capture: Option<&TokenStream>,
) -> syn::Result<TokenStream> {
    check_options(options)?;
    let params = common::analyze(&mut item.sig, "tool", place, false)?;
    build_tool(options, item, &params, callee, capture)
}

/// The expression that builds the tool: a hidden argument struct whose
/// fields are the parameters (its schema is the input schema) and a handler
/// that calls `callee` with them.
fn build_tool(
    options: &Options,
    item: &ItemFn,
    params: &[Param],
    callee: &TokenStream,
    capture: Option<&TokenStream>,
) -> syn::Result<TokenStream> {
    let name = match options.string("name") {
        Some(name) => name.value(),
        None => {
            let name = item.sig.ident.unraw_string();
            check_tool_name(&name).map_err(|reason| {
                syn::Error::new(
                    item.sig.ident.span(),
                    format!("{reason}; rename it with `#[tool(name = \"...\")]`"),
                )
            })?;
            name
        }
    };
    let description =
        options.string("description").map(|s| s.value()).or_else(|| common::doc_of(&item.attrs));
    let description = description.map(|d| quote!(.description(#d)));
    let title = options.string("title").map(|t| quote!(.title(#t)));
    let ui = ui_calls(options)?;
    let hint = |key: &str| {
        let value = options.flag(key);
        common_bool(value)
    };
    let (read_only, destructive, idempotent, open_world) =
        (hint("read_only"), hint("destructive"), hint("idempotent"), hint("open_world"));

    let fields = params.iter().filter(|p| p.role == Role::Value).map(|p| {
        let (ident, ty) = (&p.ident, &p.ty);
        let description = p.description.as_ref().map(|d| quote!(#[schemars(description = #d)]));
        let attrs = &p.field_attrs;
        quote!(#description #(#attrs)* #ident: #ty,)
    });
    let unpack = params.iter().filter(|p| p.role == Role::Value).map(|p| {
        let (ident, local) = (&p.ident, p.local());
        quote!(let #local = __mcp_args.#ident;)
    });
    let ctx = format_ident!("__mcp_ctx");
    let args = common::call_args(params, &ctx, None);
    let check = quote_spanned! {common::output_span(&item.sig)=> ::switchboard_server::__private::tool_output(__mcp_result) };
    Ok(quote! {
        #[derive(::switchboard_server::__private::serde::Deserialize, ::switchboard_server::__private::schemars::JsonSchema)]
        #[serde(crate = "::switchboard_server::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::switchboard_server::__private::schemars")]
        struct __McpArgs { #(#fields)* }

        let __mcp_tool = ::switchboard_server::Tool::new(#name) #title #description #ui .handler(
            move |__mcp_args: __McpArgs, #ctx: ::switchboard_server::RequestContext| {
                #capture
                async move {
                    #(#unpack)*
                    {
                        let __mcp_result = #callee(#(#args),*).await;
                        #check
                    }
                }
            },
        );
        ::switchboard_server::__private::tool_hints(__mcp_tool, #read_only, #destructive, #idempotent, #open_world)
    })
}

fn common_bool(value: Option<bool>) -> TokenStream {
    match value {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    }
}

/// `unraw().to_string()` on an identifier.
trait UnrawString {
    fn unraw_string(&self) -> String;
}

impl UnrawString for syn::Ident {
    fn unraw_string(&self) -> String {
        use syn::ext::IdentExt;
        self.unraw().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::check_tool_name;

    #[test]
    fn tool_names_follow_the_spec_rule() {
        for ok in ["a", "get_weather", "v1.search-all", &"x".repeat(128)] {
            assert!(check_tool_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "has space", "emoji\u{1f600}", "slash/es", &"x".repeat(129)] {
            assert!(check_tool_name(bad).is_err(), "{bad}");
        }
    }
}
