//! The server's event bus: list changes and resource updates, published from
//! anywhere in the application and delivered to every open connection.
//!
//! A bounded `tokio::sync::broadcast` channel carries events to each
//! connection's loop. A connection that falls behind far enough to miss
//! events is told so by the channel, and then over-approximates: it sends
//! every `list_changed` it may send and `resources/updated` for every URI its
//! client subscribed to, so an acknowledged change is never silently lost.
//!
//! With a shared state store the bus spans instances: events are published
//! on the store's channel in the order they were sent here, and events of
//! other instances are delivered here as if sent locally. Losing some on
//! the way is never silent either: where the store reports a gap
//! ([`Delivery::Gap`]: this instance was disconnected longer than the store
//! keeps messages, or the store lost them), or where this instance could
//! not publish (the store was down), the instances that may have missed
//! events get [`ServerEvent::Missed`], and every connection then
//! over-approximates exactly as after lagging.
//!
//! The channel's slots (a thousand by default, about 128 KB) are allocated
//! with the first event that has somewhere to go, not when the server is
//! built: a stdio server that never changes a list never pays for them
//! (they were a fifth of its heap after `initialize`). A receiver that
//! subscribed before then gets its place in the channel as it is made, so
//! it misses nothing sent after it subscribed, exactly as with the channel
//! made up front ([`EventReceiver`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{Notify, broadcast, mpsc};

use crate::store::{Delivery, StateStore};

/// Which list changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ListKind {
    /// `tools/list`.
    Tools = 1,
    /// `prompts/list`.
    Prompts = 2,
    /// `resources/list`.
    Resources = 3,
    /// `resources/templates/list`.
    ResourceTemplates = 4,
}

impl ListKind {
    /// The list method.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The notification announcing a change of this list.
    pub fn notification(self) -> &'static str {
        use switchboard_types::notifications::method;
        match self {
            ListKind::Tools => method::TOOLS_LIST_CHANGED,
            ListKind::Prompts => method::PROMPTS_LIST_CHANGED,
            ListKind::Resources | ListKind::ResourceTemplates => method::RESOURCES_LIST_CHANGED,
        }
    }
}

/// Something every connection may need to tell its client.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// A list changed.
    ListChanged(ListKind),
    /// The resource at this URI changed.
    ResourceUpdated(String),
    /// A log message for every session whose threshold it meets
    /// (`notifications/message`; [`Server::log_to_clients`](crate::Server::log_to_clients)).
    /// Local to this instance: each instance logs what happened to it.
    Log(LogEvent),
    /// A task's status changed (the Tasks extension): delivered to the
    /// 2025-11-25 session that created it (`notifications/tasks/status`)
    /// and to 2026-07-28 listen streams that asked for its id
    /// (`notifications/tasks`). Shared with the other instances.
    TaskStatus(TaskStatusEvent),
    /// Events of other instances may have been lost (the shared store
    /// reported a gap, or an instance could not publish while the store
    /// was down): every connection tells its client every
    /// `list_changed` it may send and `resources/updated` for every URI it
    /// subscribed to, as after lagging behind the bus.
    Missed,
}

/// A task as it is now ([`ServerEvent::TaskStatus`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStatusEvent {
    /// The task's `DetailedTask` (the Tasks extension's shape, what
    /// `tasks/get` answers); 2025-11-25 sessions get a view of it.
    pub task: serde_json::Value,
}

impl TaskStatusEvent {
    /// The task's id.
    pub fn task_id(&self) -> &str {
        self.task.get("taskId").and_then(serde_json::Value::as_str).unwrap_or_default()
    }
}

/// A server-wide log message ([`ServerEvent::Log`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEvent {
    /// Its severity.
    pub level: switchboard_types::logging::LoggingLevel,
    /// The logger's name, if any.
    pub logger: Option<String>,
    /// The message: any JSON (keep secrets out).
    pub data: serde_json::Value,
}

/// The sending side, shared by the registries and the public API. With a
/// shared [`StateStore`](crate::store::StateStore) it also publishes every
/// event to the other instances and delivers theirs here.
#[derive(Debug, Clone)]
pub(crate) struct EventBus {
    channel: Arc<Channel>,
    remote: Option<Arc<Remote>>,
}

/// The local broadcast channel, made when first needed (see the module
/// docs).
#[derive(Debug)]
struct Channel {
    capacity: usize,
    tx: OnceLock<broadcast::Sender<ServerEvent>>,
    /// Receivers that subscribed before the channel was made. Also the lock
    /// under which it is made.
    early: Mutex<Vec<Weak<Early>>>,
}

/// Where an early receiver finds its place in the channel once it is made.
#[derive(Debug, Default)]
struct Early {
    rx: Mutex<Option<broadcast::Receiver<ServerEvent>>>,
    /// The bus was dropped before the channel was made.
    closed: AtomicBool,
    /// Told when `rx` is set or `closed` is.
    changed: Notify,
}

impl Channel {
    fn new(capacity: usize) -> Self {
        Self { capacity: capacity.max(1), tx: OnceLock::new(), early: Mutex::new(Vec::new()) }
    }

    /// Sends `event` to every receiver; nobody listening is fine (the
    /// channel is not made for an event nobody would receive).
    fn send(&self, event: ServerEvent) {
        if let Some(tx) = self.tx.get() {
            let _ = tx.send(event);
            return;
        }
        let mut early = self.early.lock().expect("event bus lock poisoned");
        early.retain(|receiver| receiver.strong_count() > 0);
        if early.is_empty() && self.tx.get().is_none() {
            return;
        }
        let tx = self.make(&mut early);
        drop(early);
        let _ = tx.send(event);
    }

    /// The channel, made now if it was not (with a place for every early
    /// receiver still there); called with the `early` lock held.
    fn make(&self, early: &mut Vec<Weak<Early>>) -> &broadcast::Sender<ServerEvent> {
        self.tx.get_or_init(|| {
            let tx = broadcast::channel(self.capacity).0;
            for receiver in early.drain(..).filter_map(|receiver| receiver.upgrade()) {
                *receiver.rx.lock().expect("event receiver lock poisoned") = Some(tx.subscribe());
                receiver.changed.notify_one();
            }
            tx
        })
    }

    /// A receiver of every event sent from now on; no channel is made for it.
    fn subscribe(&self) -> EventReceiver {
        if let Some(tx) = self.tx.get() {
            return EventReceiver(Receiving::Live(tx.subscribe()));
        }
        let mut early = self.early.lock().expect("event bus lock poisoned");
        if let Some(tx) = self.tx.get() {
            return EventReceiver(Receiving::Live(tx.subscribe()));
        }
        early.retain(|receiver| receiver.strong_count() > 0);
        let receiver = Arc::new(Early::default());
        early.push(Arc::downgrade(&receiver));
        EventReceiver(Receiving::Early(receiver))
    }

    /// A receiver of the channel itself, made now if it was not.
    fn subscribe_now(&self) -> broadcast::Receiver<ServerEvent> {
        let mut early = self.early.lock().expect("event bus lock poisoned");
        self.make(&mut early).subscribe()
    }
}

impl Drop for Channel {
    /// Early receivers end as a dropped channel's receivers do.
    fn drop(&mut self) {
        let early = self.early.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        for receiver in early.drain(..).filter_map(|receiver| receiver.upgrade()) {
            receiver.closed.store(true, Ordering::Release);
            receiver.changed.notify_one();
        }
    }
}

/// The receiving side of the bus: a `broadcast::Receiver`, or, subscribed
/// before the channel was made, the place where it will find one.
#[derive(Debug)]
pub(crate) struct EventReceiver(Receiving);

#[derive(Debug)]
enum Receiving {
    Live(broadcast::Receiver<ServerEvent>),
    Early(Arc<Early>),
}

impl EventReceiver {
    /// The next event, as [`broadcast::Receiver::recv`] (cancellation-safe
    /// too: an early receiver's place stays where it is found).
    pub(crate) async fn recv(&mut self) -> Result<ServerEvent, RecvError> {
        loop {
            let early = match &mut self.0 {
                Receiving::Live(rx) => return rx.recv().await,
                Receiving::Early(early) => Arc::clone(early),
            };
            if let Some(rx) = early.rx.lock().expect("event receiver lock poisoned").take() {
                self.0 = Receiving::Live(rx);
                continue;
            }
            if early.closed.load(Ordering::Acquire) {
                return Err(RecvError::Closed);
            }
            // `notify_one` keeps its permit when nobody waits yet.
            early.changed.notified().await;
        }
    }

    /// The next event if one is there, as [`broadcast::Receiver::try_recv`].
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn try_recv(&mut self) -> Result<ServerEvent, TryRecvError> {
        if let Receiving::Early(early) = &self.0 {
            let Some(rx) = early.rx.lock().expect("event receiver lock poisoned").take() else {
                return Err(if early.closed.load(Ordering::Acquire) {
                    TryRecvError::Closed
                } else {
                    TryRecvError::Empty
                });
            };
            self.0 = Receiving::Live(rx);
        }
        match &mut self.0 {
            Receiving::Live(rx) => rx.try_recv(),
            Receiving::Early(_) => Err(TryRecvError::Empty),
        }
    }
}

/// The bridge to other instances: a publisher draining `outbox` in order
/// and a subscriber injecting the others' events, both started on the
/// first use inside a runtime.
#[derive(Debug)]
struct Remote {
    store: Arc<dyn StateStore>,
    channel: String,
    /// This instance's id: its own messages come back and are skipped.
    instance: String,
    outbox: mpsc::UnboundedSender<ServerEvent>,
    pending: Mutex<Option<mpsc::UnboundedReceiver<ServerEvent>>>,
    /// Set once the server is built: the registrations of start-up are
    /// not news to the other instances.
    live: std::sync::atomic::AtomicBool,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Wire {
    from: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    updated: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    list: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    task: Option<serde_json::Value>,
    /// The sender could not publish some events (the store was down):
    /// whoever reads this may have missed them.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    gap: bool,
}

impl Wire {
    /// `event` as sent by instance `from`; `None` for what stays local.
    fn of(from: &str, event: ServerEvent) -> Option<Wire> {
        let mut wire = Wire { from: from.to_owned(), updated: None, list: None, task: None, gap: false };
        match event {
            ServerEvent::ResourceUpdated(uri) => wire.updated = Some(uri),
            ServerEvent::ListChanged(kind) => wire.list = Some(kind as u8),
            ServerEvent::TaskStatus(status) => wire.task = Some(status.task),
            ServerEvent::Missed => wire.gap = true,
            // Each instance logs what happened to it.
            ServerEvent::Log(_) => return None,
        }
        Some(wire)
    }

    /// The event this message carries, if it is one this version knows.
    fn event(self) -> Option<ServerEvent> {
        if self.gap {
            return Some(ServerEvent::Missed);
        }
        if let Some(task) = self.task {
            return Some(ServerEvent::TaskStatus(TaskStatusEvent { task }));
        }
        Some(match (self.updated, self.list) {
            (Some(uri), _) => ServerEvent::ResourceUpdated(uri),
            (None, Some(1)) => ServerEvent::ListChanged(ListKind::Tools),
            (None, Some(2)) => ServerEvent::ListChanged(ListKind::Prompts),
            (None, Some(3)) => ServerEvent::ListChanged(ListKind::Resources),
            (None, Some(4)) => ServerEvent::ListChanged(ListKind::ResourceTemplates),
            _ => return None,
        })
    }
}

/// First pause before publishing again after the store failed.
const REPUBLISH_MIN_DELAY: std::time::Duration = std::time::Duration::from_millis(100);
/// Longest pause between two attempts to publish.
const REPUBLISH_MAX_DELAY: std::time::Duration = std::time::Duration::from_secs(2);

impl EventBus {
    pub(crate) fn new(capacity: usize) -> Self {
        Self { channel: Arc::new(Channel::new(capacity)), remote: None }
    }

    /// A bus whose events also travel through `store` on `channel`.
    pub(crate) fn shared(capacity: usize, store: Arc<dyn StateStore>, channel: String) -> Self {
        let mut id = [0u8; 12];
        getrandom::fill(&mut id).expect("the operating system's random source is available");
        let instance: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let (outbox, pending) = mpsc::unbounded_channel();
        let remote = Remote {
            store,
            channel,
            instance,
            outbox,
            pending: Mutex::new(Some(pending)),
            live: std::sync::atomic::AtomicBool::new(false),
        };
        let bus = Self { channel: Arc::new(Channel::new(capacity)), remote: Some(Arc::new(remote)) };
        bus.start_bridge();
        bus
    }

    /// Publishes an event; nobody listening is fine.
    pub(crate) fn send(&self, event: ServerEvent) {
        if let Some(remote) = &self.remote
            && remote.live.load(std::sync::atomic::Ordering::Acquire)
            && !matches!(event, ServerEvent::Log(_))
        {
            let _ = remote.outbox.send(event.clone());
            self.start_bridge();
        }
        self.channel.send(event);
    }

    /// From now on, events also go to the other instances (called when the
    /// server is built).
    pub(crate) fn go_live(&self) {
        if let Some(remote) = &self.remote {
            remote.live.store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// A receiver of every event sent from now on.
    pub(crate) fn subscribe(&self) -> EventReceiver {
        self.start_bridge();
        self.channel.subscribe()
    }

    /// The same as a `broadcast::Receiver` (for the public API); makes the
    /// channel now.
    pub(crate) fn subscribe_channel(&self) -> broadcast::Receiver<ServerEvent> {
        self.start_bridge();
        self.channel.subscribe_now()
    }

    /// Starts the bridge tasks once, when called inside a tokio runtime.
    fn start_bridge(&self) {
        let Some(remote) = &self.remote else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let Some(outbox) = remote.pending.lock().expect("bridge lock poisoned").take() else { return };
        runtime.spawn(publish_events(Arc::clone(remote), outbox));
        runtime.spawn(receive_events(Arc::clone(remote), Arc::clone(&self.channel)));
    }
}

/// Publishes this instance's events in order. When the store refuses one,
/// that event and every one queued while the store stays down are
/// replaced by one gap message, sent (retried with backoff) once the store
/// answers again: the other instances then over-approximate.
async fn publish_events(remote: Arc<Remote>, mut outbox: mpsc::UnboundedReceiver<ServerEvent>) {
    let mut owe_gap = false;
    let mut delay = REPUBLISH_MIN_DELAY;
    loop {
        if owe_gap {
            // The gap covers whatever was queued before it goes out.
            while outbox.try_recv().is_ok() {}
            if remote.publish(ServerEvent::Missed).await {
                owe_gap = false;
                delay = REPUBLISH_MIN_DELAY;
            } else {
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(REPUBLISH_MAX_DELAY);
                continue;
            }
        }
        let Some(event) = outbox.recv().await else { return };
        if !remote.publish(event).await {
            owe_gap = true;
        }
    }
}

/// Delivers the other instances' events here, and [`ServerEvent::Missed`]
/// wherever the store says some may have been lost.
async fn receive_events(remote: Arc<Remote>, channel: Arc<Channel>) {
    let mut deliveries = remote.store.subscribe_with_gaps(&remote.channel);
    while let Some(delivery) = futures::StreamExt::next(&mut deliveries).await {
        let event = match delivery {
            Delivery::Gap => {
                tracing::info!(
                    "events of other instances may have been lost: clients are told what may have changed"
                );
                ServerEvent::Missed
            }
            Delivery::Message(bytes) => {
                let Ok(wire) = serde_json::from_slice::<Wire>(&bytes) else { continue };
                if wire.from == remote.instance {
                    continue;
                }
                let Some(event) = wire.event() else { continue };
                event
            }
        };
        channel.send(event);
    }
}

impl Remote {
    /// Publishes one event to the other instances; false if the store
    /// refused it.
    async fn publish(&self, event: ServerEvent) -> bool {
        let Some(wire) = Wire::of(&self.instance, event) else { return true };
        let bytes = serde_json::to_vec(&wire).expect("events serialize");
        match self.store.publish(&self.channel, bytes).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "events could not reach the other instances yet: they will be told they missed some");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use futures::StreamExt;
    use futures::future::BoxFuture;
    use futures::stream::BoxStream;

    use super::*;
    use crate::store::{LogEntries, MemoryStore, StateError};

    /// A memory store whose `publish` fails while `down` is set.
    #[derive(Debug, Default)]
    struct Flaky {
        inner: MemoryStore,
        down: AtomicBool,
    }

    impl StateStore for Flaky {
        fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StateError>> {
            self.inner.get(key)
        }
        fn set<'a>(
            &'a self,
            key: &'a str,
            value: Vec<u8>,
            ttl: Duration,
        ) -> BoxFuture<'a, Result<(), StateError>> {
            self.inner.set(key, value, ttl)
        }
        fn set_if_absent<'a>(
            &'a self,
            key: &'a str,
            value: Vec<u8>,
            ttl: Duration,
        ) -> BoxFuture<'a, Result<bool, StateError>> {
            self.inner.set_if_absent(key, value, ttl)
        }
        fn compare_and_set<'a>(
            &'a self,
            key: &'a str,
            expected: Option<&'a [u8]>,
            value: Vec<u8>,
            ttl: Duration,
        ) -> BoxFuture<'a, Result<bool, StateError>> {
            self.inner.compare_and_set(key, expected, value, ttl)
        }
        fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StateError>> {
            self.inner.delete(key)
        }
        fn touch<'a>(&'a self, key: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StateError>> {
            self.inner.touch(key, ttl)
        }
        fn append<'a>(
            &'a self,
            key: &'a str,
            value: Vec<u8>,
            max_len: usize,
            ttl: Duration,
        ) -> BoxFuture<'a, Result<u64, StateError>> {
            self.inner.append(key, value, max_len, ttl)
        }
        fn read_after<'a>(
            &'a self,
            key: &'a str,
            after: u64,
        ) -> BoxFuture<'a, Result<LogEntries, StateError>> {
            self.inner.read_after(key, after)
        }
        fn publish<'a>(
            &'a self,
            channel: &'a str,
            message: Vec<u8>,
        ) -> BoxFuture<'a, Result<(), StateError>> {
            if self.down.load(Ordering::SeqCst) {
                return Box::pin(std::future::ready(Err(StateError("down".into()))));
            }
            self.inner.publish(channel, message)
        }
        fn subscribe(&self, channel: &str) -> BoxStream<'static, Vec<u8>> {
            self.inner.subscribe(channel)
        }
        fn subscribe_with_gaps(&self, channel: &str) -> BoxStream<'static, Delivery> {
            self.inner.subscribe_with_gaps(channel)
        }
    }

    async fn next_wire(stream: &mut BoxStream<'static, Vec<u8>>) -> Wire {
        let bytes = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("a message in time")
            .expect("the channel is open");
        serde_json::from_slice(&bytes).expect("a bus message")
    }

    #[tokio::test]
    async fn events_that_could_not_be_published_become_one_gap_once_the_store_answers() {
        let store = Arc::new(Flaky::default());
        let mut others = store.subscribe("bus");
        let bus = EventBus::shared(16, Arc::clone(&store) as Arc<dyn StateStore>, "bus".into());
        bus.go_live();

        store.down.store(true, Ordering::SeqCst);
        bus.send(ServerEvent::ListChanged(ListKind::Tools));
        bus.send(ServerEvent::ResourceUpdated("test://a".into()));
        tokio::time::sleep(Duration::from_millis(50)).await;
        store.down.store(false, Ordering::SeqCst);

        let gap = next_wire(&mut others).await;
        assert!(gap.gap, "the refused events are announced as a gap");
        assert_eq!(gap.event(), Some(ServerEvent::Missed));
        bus.send(ServerEvent::ResourceUpdated("test://b".into()));
        let next = next_wire(&mut others).await;
        assert_eq!(
            next.event(),
            Some(ServerEvent::ResourceUpdated("test://b".into())),
            "then events as usual"
        );
    }

    #[tokio::test]
    async fn the_channel_is_made_by_the_first_event_someone_receives_and_early_receivers_get_it() {
        let bus = EventBus::new(8);
        bus.send(ServerEvent::ListChanged(ListKind::Tools));
        assert!(bus.channel.tx.get().is_none(), "no channel for an event nobody receives");

        let mut early = bus.subscribe();
        let mut waiting = bus.subscribe();
        assert!(bus.channel.tx.get().is_none(), "subscribing makes no channel");
        assert_eq!(early.try_recv(), Err(TryRecvError::Empty));
        let waiter = tokio::spawn(async move { waiting.recv().await });
        tokio::task::yield_now().await;

        bus.send(ServerEvent::ResourceUpdated("test://a".into()));
        assert!(bus.channel.tx.get().is_some(), "made for the first event with a receiver");
        let mut late = bus.subscribe();
        bus.send(ServerEvent::ListChanged(ListKind::Prompts));
        assert_eq!(early.recv().await, Ok(ServerEvent::ResourceUpdated("test://a".into())));
        assert_eq!(early.recv().await, Ok(ServerEvent::ListChanged(ListKind::Prompts)));
        let woken = tokio::time::timeout(Duration::from_secs(10), waiter).await.expect("woken").unwrap();
        assert_eq!(woken, Ok(ServerEvent::ResourceUpdated("test://a".into())), "a waiting receiver wakes");
        assert_eq!(late.try_recv(), Ok(ServerEvent::ListChanged(ListKind::Prompts)), "late: from then on");
    }

    #[tokio::test]
    async fn early_receivers_end_when_the_bus_is_dropped_before_any_event() {
        let bus = EventBus::new(8);
        let mut receiver = bus.subscribe();
        let waiter = tokio::spawn(async move { receiver.recv().await });
        tokio::task::yield_now().await;
        drop(bus);
        let ended = tokio::time::timeout(Duration::from_secs(10), waiter).await.expect("ended").unwrap();
        assert_eq!(ended, Err(RecvError::Closed));
    }

    #[tokio::test]
    async fn a_receiver_that_lags_behind_the_lazily_made_channel_is_told() {
        let bus = EventBus::new(2);
        let mut receiver = bus.subscribe();
        for i in 0..5 {
            bus.send(ServerEvent::ResourceUpdated(format!("test://{i}")));
        }
        assert!(matches!(receiver.recv().await, Err(RecvError::Lagged(_))), "lag is reported, not hidden");
    }

    #[tokio::test]
    async fn a_gap_reported_by_the_store_reaches_every_receiver_as_missed() {
        let store: Arc<dyn StateStore> = MemoryStore::new();
        let bus = EventBus::shared(16, Arc::clone(&store), "bus".into());
        bus.go_live();
        let mut receiver = bus.subscribe();
        // Another instance's gap marker, as its publisher sends it.
        let wire = Wire::of("another-instance", ServerEvent::Missed).expect("a gap crosses instances");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            store.publish("bus", serde_json::to_vec(&wire).unwrap()).await.unwrap();
            match tokio::time::timeout(Duration::from_millis(100), receiver.recv()).await {
                Ok(event) => {
                    assert_eq!(event.unwrap(), ServerEvent::Missed);
                    break;
                }
                Err(_) => assert!(tokio::time::Instant::now() < deadline, "the bus never listened"),
            }
        }
    }
}
