//! Builder setters shared by tools, prompts, resources and resource
//! templates: each wraps a wire definition in a `def` field whose
//! `title`, `description`, `icons` and `_meta` mean the same thing.

/// Defines `title`, `description`, `icon` and `meta` on a builder whose
/// `def` has those fields.
macro_rules! metadata_setters {
    () => {
        /// Display name (sent to 2025-06-18 and later clients).
        #[must_use]
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.def.title = Some(title.into());
            self
        }

        /// What it is, written for the model and the user.
        #[must_use]
        pub fn description(mut self, description: impl Into<String>) -> Self {
            self.def.description = Some(description.into());
            self
        }

        /// Adds an icon (sent to 2025-11-25 and later clients).
        #[must_use]
        pub fn icon(mut self, icon: switchboard_types::content::Icon) -> Self {
            self.def.icons.get_or_insert_with(Vec::new).push(icon);
            self
        }

        /// OAuth scopes a caller must hold to see and use this (HTTP with
        /// authorization; without an authenticated caller nothing is
        /// restricted). Lists show a caller only what it may use.
        #[must_use]
        pub fn requires_scopes<I, S>(mut self, scopes: I) -> Self
        where
            I: IntoIterator<Item = S>,
            S: Into<String>,
        {
            self.scopes.extend(scopes.into_iter().map(Into::into));
            self
        }

        /// Sets `_meta` on the definition.
        #[must_use]
        pub fn meta(mut self, meta: switchboard_types::Meta) -> Self {
            self.def.meta = Some(meta);
            self
        }
    };
}

pub(crate) use metadata_setters;
