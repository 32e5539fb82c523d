//! `#[resource("scheme://{var}/...")]`: a resource template whose variables
//! are the function's parameters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use crate::common::{self, Kind, Options, Place, Role};

const OPTIONS: &[(&str, Kind)] =
    &[("name", Kind::Str), ("title", Kind::Str), ("description", Kind::Str), ("mime_type", Kind::Str)];

/// `#[resource(...)]` on a free function: adds `{fn}_resource()`.
pub(crate) fn expand(options: Options, item: &mut ItemFn) -> syn::Result<TokenStream> {
    let ident = item.sig.ident.clone();
    let Built { expr, fixed } = build(&options, item, Place::Free, &quote!(#ident), None)?;
    let builder = common::builder_name(&ident, "resource");
    let (ty, what) = if fixed {
        (quote!(::switchboard_server::Resource), "resource")
    } else {
        (quote!(::switchboard_server::ResourceTemplate), "resource template")
    };
    let doc = format!("The MCP {what} built from `{ident}` by `#[resource]`.");
    let vis = &item.vis;
    let cfgs = common::cfg_attrs(&item.attrs);
    Ok(quote! {
        #(#cfgs)*
        #[doc = #doc]
        #vis fn #builder() -> #ty {
            #expr
        }
    })
}

/// What [`build`] made.
pub(crate) struct Built {
    /// The expression that builds it.
    pub(crate) expr: TokenStream,
    /// A URI without expressions: a fixed `Resource` (listed by
    /// `resources/list`), not a `ResourceTemplate`.
    pub(crate) fixed: bool,
}

/// Checks the function against the template and returns the expression
/// that builds the template (or the fixed resource, for a URI without
/// expressions), its handler calling `callee` (after `capture`, which runs
/// in the handler before each call).
pub(crate) fn build(
    options: &Options,
    item: &mut ItemFn,
    place: Place,
    callee: &TokenStream,
    capture: Option<&TokenStream>,
) -> syn::Result<Built> {
    let template = match options.positional.as_slice() {
        [template] => template.clone(),
        [] => {
            return Err(syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[resource] needs a URI template: #[resource(\"scheme://{var}/...\")]",
            ));
        }
        [_, extra, ..] => return Err(syn::Error::new(extra.span(), "#[resource] takes one URI template")),
    };
    options.check(OPTIONS)?;
    let params = common::analyze(&mut item.sig, "resource", place, true)?;
    common::reject_field_attrs(&params, "resource")?;

    let parsed = switchboard_uri_template::UriTemplate::parse(&template.value())
        .map_err(|e| syn::Error::new(template.span(), format!("invalid URI template: {e}")))?;
    let variables: Vec<&str> = parsed.variables().collect();
    let mut errors = None;
    for p in params.iter().filter(|p| p.role == Role::Value) {
        if !variables.contains(&p.name.as_str()) {
            let listed = if variables.is_empty() {
                "it has none".to_owned()
            } else {
                format!("its variables: {}", variables.join(", "))
            };
            common::push_error(
                &mut errors,
                syn::Error::new(
                    p.ident.span(),
                    format!(
                        "`{}` is not a variable of the template {:?} ({listed})",
                        p.name,
                        template.value()
                    ),
                ),
            );
        }
        if p.description.is_some() {
            common::push_error(
                &mut errors,
                syn::Error::new(
                    p.ident.span(),
                    "`#[arg]` applies to tools and prompts, not template variables",
                ),
            );
        }
    }
    for v in &variables {
        if !params.iter().any(|p| p.role == Role::Value && p.name == *v) {
            common::push_error(
                &mut errors,
                syn::Error::new(
                    template.span(),
                    format!("template variable `{v}` has no parameter: add `{v}: String` to the function"),
                ),
            );
        }
    }
    if let Some(e) = errors {
        return Err(e);
    }

    let ident = &item.sig.ident;
    let name = options.string("name").map_or_else(|| params_name(ident), |s| s.value());
    let description =
        options.string("description").map(|s| s.value()).or_else(|| common::doc_of(&item.attrs));
    let description = description.map(|d| quote!(.description(#d)));
    let title = options.string("title").map(|t| quote!(.title(#t)));
    let mime = options.string("mime_type").map(|m| m.value());
    let mime_setter = mime.as_ref().map(|m| quote!(.mime_type(#m)));
    let mime_arg = common::opt_str(mime.as_deref());
    let template_text = template.value();

    let req = format_ident!("__mcp_req");
    let ctx = format_ident!("__mcp_ctx");
    let vars = params.iter().filter(|p| p.role == Role::Value).map(|p| {
        let (local, ty, name) = (p.local(), &p.ty, &p.name);
        quote_spanned! {ty.span()=>
            let #local: #ty = <#ty as ::switchboard_server::__private::FromTemplateVar>::from_var(
                #name,
                #req.variables.get(#name),
            )?;
        }
    });
    let args = common::call_args(&params, &ctx, Some(&req));
    let check = quote_spanned! {common::output_span(&item.sig)=> ::switchboard_server::__private::resource_output(__mcp_result) };
    let into_contents = quote_spanned! {common::output_span(&item.sig)=>
        ::switchboard_server::__private::IntoReadResult::into_read_result
    };
    let fixed = parsed.is_literal();
    let new = if fixed {
        quote!(::switchboard_server::Resource::new(#template_text, #name))
    } else {
        quote! {
            match ::switchboard_server::ResourceTemplate::new(#template_text, #name) {
                ::core::result::Result::Ok(t) => t,
                // Parsed when the macro expanded, by the same parser.
                ::core::result::Result::Err(e) => ::core::panic!("invalid URI template: {e}"),
            }
        }
    };
    let expr = quote! {
        {
            let __mcp_template = #new;
            __mcp_template #title #description #mime_setter .handler(
                move |#req: ::switchboard_server::ReadRequest, #ctx: ::switchboard_server::RequestContext| {
                    #capture
                    async move {
                        #(#vars)*
                        let __mcp_uri = ::std::string::String::clone(&#req.uri);
                        let __mcp_out = {
                        let __mcp_result = #callee(#(#args),*).await;
                        #check
                    }?;
                        ::core::result::Result::<_, ::switchboard_server::HandlerError>::Ok(
                            #into_contents(__mcp_out, &__mcp_uri, #mime_arg)
                        )
                    }
                },
            )
        }
    };
    Ok(Built { expr, fixed })
}

fn params_name(ident: &syn::Ident) -> String {
    use syn::ext::IdentExt;
    ident.unraw().to_string()
}
