//! `#[tools]` on an impl block: its methods marked `#[tool]`,
//! `#[resource(...)]` or `#[prompt]` become builders that call the method
//! on a shared `Arc<Self>`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Attribute, ImplItem, ItemFn, ItemImpl};

use crate::common::{self, Options, Place};
use crate::{prompt, resource, tool};

/// Which macro marks a method.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Tool,
    Resource,
    Prompt,
}

/// `#[tool]`, `#[resource(...)]`, `#[prompt]`, also by path
/// (`#[switchboard_server::tool]`).
pub(crate) fn is_marker(attr: &Attribute) -> bool {
    which(attr).is_some()
}

fn which(attr: &Attribute) -> Option<Which> {
    match attr.path().segments.last()?.ident.to_string().as_str() {
        "tool" => Some(Which::Tool),
        "resource" => Some(Which::Resource),
        "prompt" => Some(Which::Prompt),
        _ => None,
    }
}

pub(crate) fn expand(options: TokenStream, item: &mut ItemImpl) -> syn::Result<TokenStream> {
    if !options.is_empty() {
        return Err(syn::Error::new(options.span(), "#[tools] takes no options"));
    }
    if let Some((_, path, _)) = &item.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "#[tools] goes on an inherent `impl Type` block, not a trait impl",
        ));
    }
    let this = format_ident!("__mcp_this");
    let capture = quote! { let #this = ::std::sync::Arc::clone(&#this); };
    let (mut tools, mut templates, mut resources, mut prompts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut errors = None;
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else { continue };
        let Some(position) = method.attrs.iter().position(|a| which(a).is_some()) else { continue };
        let attr = method.attrs.remove(position);
        let Some(kind) = which(&attr) else { continue };
        if let Some(second) = method.attrs.iter().find(|a| which(a).is_some()) {
            common::push_error(
                &mut errors,
                syn::Error::new_spanned(second, "a method is one tool, resource or prompt, not several"),
            );
            continue;
        }
        let mut as_fn = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        let ident = &method.sig.ident;
        let callee = quote!(#this.#ident);
        let built = match &attr.meta {
            syn::Meta::Path(_) => Ok(Options::empty()),
            _ => attr.parse_args::<Options>(),
        }
        .and_then(|options| match kind {
            Which::Tool => tool::build(&options, &mut as_fn, Place::Method, &callee, Some(&capture))
                .map(|e| (e, kind, false)),
            Which::Resource => resource::build(&options, &mut as_fn, Place::Method, &callee, Some(&capture))
                .map(|b| (b.expr, kind, b.fixed)),
            Which::Prompt => prompt::build(&options, &mut as_fn, Place::Method, &callee, Some(&capture))
                .map(|e| (e, kind, false)),
        });
        // The signature without its `#[arg]` attributes.
        method.sig = as_fn.sig;
        let (built, kind, fixed) = match built {
            Ok(built) => built,
            Err(e) => {
                common::push_error(&mut errors, e);
                continue;
            }
        };
        let cfgs = common::cfg_attrs(&method.attrs);
        let push = quote! {
            #(#cfgs)*
            __mcp_items.push({
                let #this = ::std::sync::Arc::clone(&#this);
                #built
            });
        };
        match kind {
            Which::Tool => tools.push(push),
            Which::Resource if fixed => resources.push(push),
            Which::Resource => templates.push(push),
            Which::Prompt => prompts.push(push),
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let getter = |items: &[TokenStream], name: &str, ty: TokenStream, doc: &str| {
        if items.is_empty() {
            return None;
        }
        let name = format_ident!("{name}");
        Some(quote! {
            #[doc = #doc]
            pub fn #name(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<#ty> {
                let __mcp_this = self;
                #[allow(unused_mut)]
                let mut __mcp_items = ::std::vec::Vec::new();
                #(#items)*
                __mcp_items
            }
        })
    };
    let tools = getter(
        &tools,
        "tools",
        quote!(::switchboard_server::Tool),
        "The MCP tools of this type's `#[tool]` methods (from `#[tools]`), each calling its method on this shared value.",
    );
    let templates = getter(
        &templates,
        "resource_templates",
        quote!(::switchboard_server::ResourceTemplate),
        "The MCP resource templates of this type's `#[resource]` methods (from `#[tools]`), each calling its method on this shared value.",
    );
    let resources = getter(
        &resources,
        "resources",
        quote!(::switchboard_server::Resource),
        "The fixed MCP resources of this type's `#[resource]` methods whose URI has no template expression (from `#[tools]`), each calling its method on this shared value.",
    );
    let prompts = getter(
        &prompts,
        "prompts",
        quote!(::switchboard_server::Prompt),
        "The MCP prompts of this type's `#[prompt]` methods (from `#[tools]`), each calling its method on this shared value.",
    );
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let self_ty = &item.self_ty;
    Ok(quote! {
        impl #impl_generics #self_ty #where_clause {
            #tools
            #templates
            #resources
            #prompts
        }
    })
}
