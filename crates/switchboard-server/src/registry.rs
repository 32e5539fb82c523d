//! The method registry: every request method the server answers, the
//! core's and the application's, as rows of one table ([`Registry`]), and
//! the route a request is looked up to ([`Route`]).
//!
//! Why one table: the dispatcher, the server middleware, the request span
//! and the cache hints all ask "what is this method?". When the core's
//! methods were a closed enum beside a list of the application's, each of
//! them asked twice, and adding a method meant editing every match. Now a
//! method is a row: its name, its facts ([`MethodFacts`]: target param,
//! streaming, input), when it is served ([`Served`]), how its results may
//! be cached ([`CacheClass`]), how it is admitted ([`Admission`]) and its
//! handler. The core registers its rows through the same
//! [`Registry::register`] as an application's [`Method`](crate::Method)s,
//! so a name is taken once (a second registration is an error) and a core
//! method cannot be shadowed.
//!
//! Which revisions have a method is the revision table's word
//! ([`Revision::removes`], [`Revision::adds`]); a row only says which of
//! those rules applies. `initialize` is not a row: it is the handshake
//! itself, answered by the lifecycle before any route.

use serde_json::value::RawValue;
use switchboard_types::methods::{MethodFacts, Target};
use switchboard_types::revision::Revision;
use switchboard_types::{Era, ProtocolVersion};

/// A looked-up method: its row in the server's [`Registry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route(u16);

/// What the server must offer for a core method to exist (a method of a
/// primitive the server does not advertise is `-32601`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    Nothing,
    Tools,
    Resources,
    Prompts,
    /// A prompt or template with a completer (`completions`).
    Completions,
    Logging,
    /// The Tasks extension (or 2025-11-25's `tasks` capability).
    Tasks,
}

/// Which revisions have a core method, in the revision table's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Revisions {
    /// A method of 2024-11-05: every revision that did not remove it.
    Base,
    /// Only the revisions whose row adds it.
    Added,
    /// The revisions whose row adds it, and every per-request revision
    /// (where the Tasks extension defines it).
    AddedOrPerRequest,
    /// Every per-request revision (an extension's method).
    PerRequest,
}

/// When a method is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Served {
    /// A core method: what it needs offered, and which revisions have it.
    Core(Needs, Revisions),
    /// An application's method: from this revision on (every one if none).
    Since(Option<ProtocolVersion>),
}

/// How long a method's 2026-07-28 results may be cached
/// (`docs/specification/2026-07-28/server/utilities/caching.mdx`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheClass {
    /// `server/discover`: the discovery TTL, always public.
    Discovery,
    /// A list: the list TTL, private to an authenticated caller.
    List,
    /// `resources/read`: the read TTL, private to an authenticated caller.
    Read,
}

/// Which registered items' scopes a request needs (`requires_scopes`):
/// the item its target names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScopedBy {
    /// The tool named by `name`.
    Tool,
    /// The prompt named by `name`.
    Prompt,
    /// The resource (or the template matching it) named by `uri`.
    Resource,
}

/// What the dispatcher does with a request before its handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Runs the handler.
    Run,
    /// Answers an empty result on the spot (`ping`: no handler, no task).
    AnswerEmpty,
    /// Runs the handler within the caller's rate limit (`tools/call`).
    RateLimited,
}

/// One method: a row of the [`Registry`].
#[derive(Debug)]
pub(crate) struct Entry<H> {
    pub name: Box<str>,
    /// What the method is (target param, streaming, input); none for an
    /// application's method registered without a marker type.
    pub facts: Option<MethodFacts>,
    pub served: Served,
    pub cache: Option<CacheClass>,
    pub admission: Admission,
    /// Whose scopes a request needs; none for methods open to every caller
    /// that may use the server.
    pub scoped_by: Option<ScopedBy>,
    pub handler: H,
}

impl<H> Entry<H> {
    /// The param naming what a request is about, if the method has one.
    pub(crate) fn target(&self) -> Option<Target> {
        self.facts.and_then(|facts| facts.target)
    }

    /// Whether a request of revision `rules` reaches this method on a
    /// server that `offers` what it needs.
    fn served(&self, rules: &Revision, offers: impl Fn(Needs) -> bool) -> bool {
        match self.served {
            Served::Since(first) => first.is_none_or(|first| rules.version >= first),
            Served::Core(needs, revisions) => {
                let name = &*self.name;
                let in_revision = match revisions {
                    Revisions::Base => !rules.removes(name),
                    Revisions::Added => rules.adds(name),
                    Revisions::AddedOrPerRequest => rules.adds(name) || rules.era == Era::PerRequest,
                    Revisions::PerRequest => rules.era == Era::PerRequest,
                };
                in_revision && offers(needs)
            }
        }
    }
}

/// A second registration of a method name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Duplicate(pub String);

/// Every method the server answers, ordered by name.
#[derive(Debug)]
pub(crate) struct Registry<H> {
    /// Sorted by name, so a lookup is a binary search: about five string
    /// comparisons for the ~20 core methods, with no hashing.
    entries: Vec<Entry<H>>,
}

impl<H> Default for Registry<H> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<H> Registry<H> {
    /// Adds `entry`; a name already registered is refused.
    pub(crate) fn register(&mut self, entry: Entry<H>) -> Result<(), Duplicate> {
        match self.position(&entry.name) {
            Ok(_) => Err(Duplicate(entry.name.into())),
            Err(at) => {
                assert!(self.entries.len() < usize::from(u16::MAX), "fewer than 65,535 methods");
                self.entries.insert(at, entry);
                Ok(())
            }
        }
    }

    /// The route of `method` for a request of `version`, if the method is
    /// served to it on a server that `offers` what it needs.
    pub(crate) fn lookup(
        &self,
        method: &str,
        version: ProtocolVersion,
        offers: impl Fn(Needs) -> bool,
    ) -> Option<Route> {
        let at = self.position(method).ok()?;
        self.entries[at].served(version.rules(), offers).then_some(Route(at as u16))
    }

    /// The row named `method`, whichever revisions it is served to.
    pub(crate) fn get(&self, method: &str) -> Option<&Entry<H>> {
        self.position(method).ok().map(|at| &self.entries[at])
    }

    /// The row of `route` (a route of this registry).
    pub(crate) fn entry(&self, route: Route) -> &Entry<H> {
        &self.entries[usize::from(route.0)]
    }

    /// Every row, ordered by name.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &Entry<H>> {
        self.entries.iter()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|entry| (*entry.name).cmp(name))
    }
}

/// What a request names: the string its method's `target` param holds
/// (`name`, `uri` or `taskId`), when there is one.
pub(crate) fn target_in(params: Option<&RawValue>, target: Target) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: Option<String>,
        uri: Option<String>,
        #[serde(rename = "taskId")]
        task_id: Option<String>,
    }
    let named: Named = serde_json::from_str(params?.get()).ok()?;
    match target {
        Target::Name => named.name,
        Target::Uri => named.uri,
        Target::TaskId => named.task_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn core(name: &'static str, needs: Needs, revisions: Revisions) -> Entry<()> {
        Entry {
            name: name.into(),
            facts: switchboard_types::methods::facts(name).copied(),
            served: Served::Core(needs, revisions),
            cache: None,
            admission: Admission::Run,
            scoped_by: None,
            handler: (),
        }
    }

    #[test]
    fn a_name_is_registered_once() {
        let mut registry = Registry::default();
        assert!(registry.register(core("tools/list", Needs::Tools, Revisions::Base)).is_ok());
        let again = registry.register(core("tools/list", Needs::Nothing, Revisions::Base));
        assert_eq!(again, Err(Duplicate("tools/list".into())));
    }

    #[test]
    fn lookups_follow_the_revision_table_and_what_is_offered() {
        let mut registry = Registry::default();
        for (name, needs, revisions) in [
            ("ping", Needs::Nothing, Revisions::Base),
            ("server/discover", Needs::Nothing, Revisions::Added),
            ("tasks/get", Needs::Tasks, Revisions::AddedOrPerRequest),
            ("tasks/update", Needs::Tasks, Revisions::PerRequest),
            ("tools/call", Needs::Tools, Revisions::Base),
        ] {
            registry.register(core(name, needs, revisions)).unwrap();
        }
        let everything = |_| true;
        let [v2024, v2025_06, v2025_11, v2026] = [
            ProtocolVersion::V2024_11_05,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ];
        let served = |method, version| registry.lookup(method, version, everything).is_some();
        // 2026-07-28 removed ping; only it adds server/discover.
        assert!(served("ping", v2024) && !served("ping", v2026));
        assert!(served("server/discover", v2026) && !served("server/discover", v2025_11));
        // 2025-11-25 adds tasks/get; the extension defines it per request.
        assert!(served("tasks/get", v2025_11) && served("tasks/get", v2026));
        assert!(!served("tasks/get", v2025_06));
        assert!(served("tasks/update", v2026) && !served("tasks/update", v2025_11));
        assert!(!served("tools/list", v2026), "an unregistered name is not served");
        // A method of a primitive the server does not offer is not served.
        assert!(registry.lookup("tools/call", v2026, |needs| needs != Needs::Tools).is_none());
        let route = registry.lookup("tools/call", v2024, everything).unwrap();
        assert_eq!(&*registry.entry(route).name, "tools/call");
        assert_eq!(registry.entry(route).target(), Some(Target::Name));
    }

    #[test]
    fn an_application_method_is_served_from_its_first_revision() {
        let mut registry = Registry::default();
        let entry = Entry {
            name: "x/y".into(),
            facts: None,
            served: Served::Since(Some(ProtocolVersion::V2026_07_28)),
            cache: None,
            admission: Admission::Run,
            scoped_by: None,
            handler: (),
        };
        registry.register(entry).unwrap();
        assert!(registry.lookup("x/y", ProtocolVersion::V2026_07_28, |_| false).is_some());
        assert!(registry.lookup("x/y", ProtocolVersion::V2025_11_25, |_| true).is_none());
    }
}
