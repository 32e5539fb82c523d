//! Integration tests of the framework through `switchboard-testkit`: every module
//! drives a real connection loop over an in-memory pipe.

/// A transport's admission check, called in the spec's order.
mod admission;
/// Backpressure on a line transport: pipelined requests wait for a place, cancellations get through.
mod backpressure;
/// Batches, malformed input, limits: every bad line gets its error and the server keeps serving.
mod bad_input;
/// Bulk registration changes with one announcement.
mod bulk;
mod common;
/// Switching registrations off and on, mounting, tower layers.
mod composition;
/// Cancellation, progress, panics, concurrency, end of input.
mod concurrency;
/// Extensions (SEP-2133): offered in initialize and server/discover, declared by clients.
mod extensions;
/// Stateful tools through handles.
mod handles;
/// Input from the client: live requests (handshake era) and multi round-trip requests (2026-07-28).
mod input;
/// initialize, version negotiation, 2026-07-28 per-request `_meta`, server/discover.
mod lifecycle;
/// Rate limits, requests in flight, handler timeout.
mod limits;
/// 2026-07-28 subscriptions/listen streams.
mod listen;
/// Application methods defined as types: both eras, their facts, input rounds.
mod methods;
/// The outcome each reply carries: ok, tool error, error code, store outage.
mod outcome;
/// Logging and server-to-client requests.
mod peer;
/// prompts/list, prompts/get, completion/complete.
mod prompts;
/// Property tests: random bytes and random JSON never panic the dispatcher.
mod properties;
/// resources, templates, reads, legacy subscriptions and list changes.
mod resources;
/// Scopes: lists and calls per authenticated principal.
mod scopes;
/// Resources computed on demand.
mod sources;
/// Shared state across instances: the event bus, handles, cursor keys.
mod state;
/// The shared session of independent 2026-07-28 requests (stateless HTTP).
mod stateless;
/// The Tasks extension: creation, polling, input, cancellation, owners, several instances.
mod tasks;
/// tools/list, tools/call, validation, structured output, shaping, registration.
mod tools;
/// W3C trace context in `_meta`, handed to handlers in every revision.
mod trace_context;
