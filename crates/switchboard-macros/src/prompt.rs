//! `#[prompt]`: a prompt whose arguments are the function's parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use crate::common::{self, Kind, Options, Place, Role};

const OPTIONS: &[(&str, Kind)] = &[("name", Kind::Str), ("title", Kind::Str), ("description", Kind::Str)];

/// `#[prompt]` on a free function: adds `{fn}_prompt()`.
pub(crate) fn expand(options: Options, item: &mut ItemFn) -> syn::Result<TokenStream> {
    let ident = item.sig.ident.clone();
    let body = build(&options, item, Place::Free, &quote!(#ident), None)?;
    let builder = common::builder_name(&ident, "prompt");
    let doc = format!("The MCP prompt built from `{ident}` by `#[prompt]`.");
    let vis = &item.vis;
    let cfgs = common::cfg_attrs(&item.attrs);
    Ok(quote! {
        #(#cfgs)*
        #[doc = #doc]
        #vis fn #builder() -> ::switchboard_server::Prompt {
            #body
        }
    })
}

/// Checks the function and returns the expression that builds the prompt,
/// its handler calling `callee` (after `capture`, which runs in the handler
/// before each call).
pub(crate) fn build(
    options: &Options,
    item: &mut ItemFn,
    place: Place,
    callee: &TokenStream,
    capture: Option<&TokenStream>,
) -> syn::Result<TokenStream> {
    if let Some(extra) = options.positional.first() {
        return Err(syn::Error::new(extra.span(), "use `name = \"...\"` to rename a prompt"));
    }
    options.check(OPTIONS)?;
    let params = common::analyze(&mut item.sig, "prompt", place, false)?;
    common::reject_field_attrs(&params, "prompt")?;

    let ident = &item.sig.ident;
    let name = options.string("name").map_or_else(|| ident.unraw().to_string(), |s| s.value());
    let description =
        options.string("description").map(|s| s.value()).or_else(|| common::doc_of(&item.attrs));
    let description = description.map(|d| quote!(.description(#d)));
    let title = options.string("title").map(|t| quote!(.title(#t)));

    let values: Vec<_> = params.iter().filter(|p| p.role == Role::Value).collect();
    let declare = values.iter().map(|p| {
        let (ty, name) = (&p.ty, &p.name);
        let description = common::opt_str(p.description.as_deref());
        quote_spanned! {ty.span()=>
            .argument_def(::switchboard_server::__private::prompt_argument(
                #name,
                #description,
                <#ty as ::switchboard_server::__private::FromPromptArg>::REQUIRED,
            ))
        }
    });
    let args_map = format_ident!("__mcp_args");
    let ctx = format_ident!("__mcp_ctx");
    let unpack = values.iter().map(|p| {
        let (local, ty, name) = (p.local(), &p.ty, &p.name);
        quote_spanned! {ty.span()=>
            let #local: #ty =
                <#ty as ::switchboard_server::__private::FromPromptArg>::from_arg(#name, #args_map.remove(#name))?;
        }
    });
    let args = common::call_args(&params, &ctx, None);
    let check = quote_spanned! {common::output_span(&item.sig)=> ::switchboard_server::__private::prompt_output(__mcp_result) };
    let mutable = (!values.is_empty()).then(|| quote!(mut));
    Ok(quote! {
        ::switchboard_server::Prompt::new(#name) #title #description #(#declare)* .raw_handler(
            move |#mutable #args_map: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
                  #ctx: ::switchboard_server::RequestContext| {
                #capture
                async move {
                    #(#unpack)*
                    let __mcp_out = {
                        let __mcp_result = #callee(#(#args),*).await;
                        #check
                    }?;
                    ::core::result::Result::<_, ::switchboard_server::HandlerError>::Ok(__mcp_out)
                }
            },
        )
    })
}
