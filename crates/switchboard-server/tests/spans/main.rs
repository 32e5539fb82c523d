//! Tests that install a `tracing` subscriber, in a test binary of their own.
//!
//! Why apart: a scoped subscriber (`set_default`) sees a callsite only if
//! that callsite's cached interest was computed while the subscriber was
//! registered. When other tests of the same binary hit the `mcp.request`
//! callsite on other threads at the moment this one registers its
//! subscriber, the cache can settle on "never" and the test sees no span at
//! all (it did, every run, once the integration binary grew). Here nothing
//! else runs.

#[path = "../integration/common.rs"]
mod common;
/// Every request that reaches a method runs in an `mcp.request` span.
mod observability;
