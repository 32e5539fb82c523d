//! `#[tool]` on free functions and `#[tools]` on impl blocks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ImplItem, ItemFn, ItemImpl};

use crate::common::{self, Kind, Options, Param, Place, Role};

const OPTIONS: &[(&str, Kind)] = &[
    ("name", Kind::Str),
    ("title", Kind::Str),
    ("description", Kind::Str),
    ("read_only", Kind::Flag),
    ("destructive", Kind::Flag),
    ("idempotent", Kind::Flag),
    ("open_world", Kind::Flag),
];

fn check_options(options: &Options) -> syn::Result<()> {
    if let Some(extra) = options.positional.first() {
        return Err(syn::Error::new(extra.span(), "use `name = \"...\"` to rename a tool"));
    }
    options.check(OPTIONS)?;
    if let Some(name) = options.string("name") {
        check_tool_name(&name.value()).map_err(|reason| syn::Error::new(name.span(), reason))?;
    }
    Ok(())
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

/// `#[tool]` on a free function.
pub(crate) fn expand_fn(options: Options, item: &mut ItemFn) -> syn::Result<TokenStream> {
    check_options(&options)?;
    let params = common::analyze(&mut item.sig, "tool", Place::Free, false)?;
    let ident = &item.sig.ident;
    let builder = common::builder_name(ident, "tool");
    let doc = format!("The MCP tool built from [`{ident}`] by `#[tool]`.");
    let body = build_tool(&options, item, &params, &quote!(#ident), None)?;
    let vis = &item.vis;
    let cfgs = common::cfg_attrs(&item.attrs);
    Ok(quote! {
        #(#cfgs)*
        #[doc = #doc]
        #vis fn #builder() -> ::mcp_server::Tool {
            #body
        }
    })
}

/// `#[tools]` on an impl block: every method marked `#[tool]` becomes a
/// tool of `tools(self: Arc<Self>)`.
pub(crate) fn expand_impl(options: TokenStream, item: &mut ItemImpl) -> syn::Result<TokenStream> {
    if !options.is_empty() {
        return Err(syn::Error::new(options.span(), "#[tools] takes no options"));
    }
    if let Some((_, path, _)) = &item.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "#[tools] goes on an inherent `impl Type` block, not a trait impl",
        ));
    }
    let mut tools = Vec::new();
    let mut errors = None;
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        let Some(position) = method.attrs.iter().position(is_tool_attr) else { continue };
        let attr = method.attrs.remove(position);
        let result = (|| {
            let options = match &attr.meta {
                syn::Meta::Path(_) => Options::empty(),
                _ => attr.parse_args::<Options>()?,
            };
            check_options(&options)?;
            let params = common::analyze(&mut method.sig, "tool", Place::Method, false)?;
            let as_fn = ItemFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig: method.sig.clone(),
                block: Box::new(method.block.clone()),
            };
            let ident = &method.sig.ident;
            let this = format_ident!("__mcp_this");
            let capture = quote! { let #this = ::std::sync::Arc::clone(&#this); };
            let tool = build_tool(&options, &as_fn, &params, &quote!(#this.#ident), Some(capture))?;
            let cfgs = common::cfg_attrs(&method.attrs);
            Ok(quote! {
                #(#cfgs)*
                __mcp_tools.push({
                    let #this = ::std::sync::Arc::clone(&#this);
                    #tool
                });
            })
        })();
        match result {
            Ok(tool) => tools.push(tool),
            Err(e) => common::push_error(&mut errors, e),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let self_ty = &item.self_ty;
    Ok(quote! {
        impl #impl_generics #self_ty #where_clause {
            /// The MCP tools of this type's `#[tool]` methods (from `#[tools]`),
            /// each calling its method on this shared value.
            pub fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::mcp_server::Tool> {
                let __mcp_this = self;
                #[allow(unused_mut)]
                let mut __mcp_tools = ::std::vec::Vec::new();
                #(#tools)*
                __mcp_tools
            }
        }
    })
}

/// `#[tool]`, `#[tool(...)]` or `#[mcp_server::tool...]`.
pub(crate) fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path().segments.last().is_some_and(|s| s.ident == "tool")
}

/// The expression that builds the tool: a hidden argument struct whose
/// fields are the parameters (its schema is the input schema) and a handler
/// that calls `callee` with them.
fn build_tool(
    options: &Options,
    item: &ItemFn,
    params: &[Param],
    callee: &TokenStream,
    capture: Option<TokenStream>,
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
    let convert = quote_spanned! {item.sig.output.span()=>
        ::mcp_server::__private::tool_error
    };
    Ok(quote! {
        #[derive(::mcp_server::__private::serde::Deserialize, ::mcp_server::__private::schemars::JsonSchema)]
        #[serde(crate = "::mcp_server::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::mcp_server::__private::schemars")]
        struct __McpArgs { #(#fields)* }

        let __mcp_tool = ::mcp_server::Tool::new(#name) #title #description .handler(
            move |__mcp_args: __McpArgs, #ctx: ::mcp_server::RequestContext| {
                #capture
                async move {
                    #(#unpack)*
                    ::core::result::Result::map_err(#callee(#(#args),*).await, #convert)
                }
            },
        );
        ::mcp_server::__private::tool_hints(__mcp_tool, #read_only, #destructive, #idempotent, #open_world)
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
