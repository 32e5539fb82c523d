//! One registered resource or resource template ([`ResourceEntry`],
//! [`TemplateEntry`]): URIs and templates checked at registration, with
//! the templates' completers.

use std::sync::Arc;

use switchboard_types::ProtocolVersion;
use switchboard_uri_template::UriTemplate;

use crate::completion::Completer;
use crate::error::{Error, Result};
use crate::resources::uri::validate_uri;
use crate::resources::views;
use crate::resources::{Resource, ResourceHandler, ResourceTemplate};
use crate::shape;

/// A registered resource.
pub(crate) struct ResourceEntry {
    pub def: switchboard_types::resources::Resource,
    pub handler: Arc<dyn ResourceHandler>,
    /// Scopes a caller must hold.
    pub scopes: Box<[String]>,
    rendered: shape::Rendered,
}

impl ResourceEntry {
    pub(crate) fn prepare(resource: Resource) -> Result<Self> {
        validate_uri(&resource.def.uri)
            .map_err(|reason| Error::InvalidUri { uri: resource.def.uri.clone(), reason })?;
        let handler = resource
            .handler
            .ok_or_else(|| Error::MissingHandler(format!("resource {:?}", resource.def.uri)))?;
        let def = &resource.def;
        if !resource.as_given {
            views::check_resource(&def.uri, def.mime_type.as_deref(), def.meta.as_ref())?;
        }
        let handler = views::with_content_meta(handler, views::content_meta(def.meta.as_ref()));
        Ok(Self { def: resource.def, handler, scopes: resource.scopes.into(), rendered: Default::default() })
    }

    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered.get_or_init(version, || shape::metadata(&self.def, version))
    }
}

/// A registered resource template.
pub(crate) struct TemplateEntry {
    pub def: switchboard_types::resources::ResourceTemplate,
    pub template: UriTemplate,
    pub handler: Arc<dyn ResourceHandler>,
    pub completers: std::collections::HashMap<String, Arc<dyn Completer>>,
    /// Scopes a caller must hold.
    pub scopes: Box<[String]>,
    rendered: shape::Rendered,
}

impl TemplateEntry {
    pub(crate) fn prepare(template: ResourceTemplate) -> Result<Self> {
        let handler = template.handler.ok_or_else(|| {
            Error::MissingHandler(format!("resource template {:?}", template.def.uri_template))
        })?;
        let def = &template.def;
        if !template.as_given {
            views::check_resource(&def.uri_template, def.mime_type.as_deref(), def.meta.as_ref())?;
        }
        let handler = views::with_content_meta(handler, views::content_meta(def.meta.as_ref()));
        let known: Vec<&str> = template.template.variables().collect();
        if let Some(unknown) = template.completers.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(Error::InvalidUri {
                uri: template.def.uri_template.clone(),
                reason: format!(
                    "a completer is registered for {unknown:?}, which is not a variable of the template"
                ),
            });
        }
        Ok(Self {
            def: template.def,
            template: template.template,
            handler,
            completers: template.completers,
            scopes: template.scopes.into(),
            rendered: Default::default(),
        })
    }

    pub(crate) fn rendered(&self, version: ProtocolVersion) -> &str {
        self.rendered.get_or_init(version, || shape::metadata(&self.def, version))
    }
}
