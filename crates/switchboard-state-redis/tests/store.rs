//! `RedisStore` against a real `redis-server` (started by
//! `switchboard_testkit::redis::RedisServer`): the same assertions as for
//! `MemoryStore`, expiry, two instances sharing one server, namespaces, and
//! a Redis outage and restart.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::BoxStream;
use switchboard_server::state::{Delivery, MemoryStore, StateError, StateStore};
use switchboard_state_redis::RedisStore;
use switchboard_testkit::redis::RedisServer;

const MINUTE: Duration = Duration::from_secs(60);
/// Longest wait for one pub/sub message; only a guard against hanging.
const RECV: Duration = Duration::from_secs(10);

async fn redis_store(server: &RedisServer, namespace: &str) -> Arc<RedisStore> {
    RedisStore::connect(&server.url(), namespace).await.expect("connect to the test redis-server")
}

async fn next(stream: &mut BoxStream<'static, Vec<u8>>) -> Vec<u8> {
    tokio::time::timeout(RECV, stream.next())
        .await
        .expect("a message within the time limit")
        .expect("the stream is still open")
}

/// Subscribes to `channel` and returns once the subscription demonstrably
/// receives: publishes probes until one arrives, then drains the probes
/// still on their way (stores of either kind).
async fn subscribed(store: &dyn StateStore, channel: &str) -> BoxStream<'static, Vec<u8>> {
    let mut stream = store.subscribe(channel);
    let deadline = Instant::now() + RECV;
    loop {
        assert!(Instant::now() < deadline, "subscription to {channel} never received");
        store.publish(channel, b"probe".to_vec()).await.unwrap();
        if let Ok(Some(message)) = tokio::time::timeout(Duration::from_millis(100), stream.next()).await {
            assert_eq!(message, b"probe");
            break;
        }
    }
    store.publish(channel, b"probes-done".to_vec()).await.unwrap();
    loop {
        let message = next(&mut stream).await;
        if message == b"probes-done" {
            return stream;
        }
        assert_eq!(message, b"probe");
    }
}

/// Every operation's contract, asserted identically for any store.
async fn check_semantics(store: &dyn StateStore) {
    // Values.
    assert_eq!(store.get("v").await.unwrap(), None);
    store.set("v", b"one".to_vec(), MINUTE).await.unwrap();
    assert_eq!(store.get("v").await.unwrap(), Some(b"one".to_vec()));
    store.set("v", b"two".to_vec(), MINUTE).await.unwrap();
    assert_eq!(store.get("v").await.unwrap(), Some(b"two".to_vec()));
    assert!(!store.set_if_absent("v", b"three".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("v").await.unwrap(), Some(b"two".to_vec()));
    assert!(store.set_if_absent("fresh", b"f".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("fresh").await.unwrap(), Some(b"f".to_vec()));
    let binary = vec![0u8, b':', 255, b'\n', b':', 7];
    store.set("bin:ary", binary.clone(), MINUTE).await.unwrap();
    assert_eq!(store.get("bin:ary").await.unwrap(), Some(binary.clone()));
    store.set("empty", Vec::new(), MINUTE).await.unwrap();
    assert_eq!(store.get("empty").await.unwrap(), Some(Vec::new()));

    // Compare-and-set: absent, a match, a mismatch; empty is not absent.
    assert!(store.compare_and_set("cas", None, b"a".to_vec(), MINUTE).await.unwrap());
    assert!(!store.compare_and_set("cas", None, b"b".to_vec(), MINUTE).await.unwrap());
    assert!(!store.compare_and_set("cas", Some(b"x"), b"b".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("cas").await.unwrap(), Some(b"a".to_vec()));
    assert!(store.compare_and_set("cas", Some(b"a"), b"b".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("cas").await.unwrap(), Some(b"b".to_vec()));
    assert!(store.compare_and_set("cas-bin", None, binary.clone(), MINUTE).await.unwrap());
    assert!(store.compare_and_set("cas-bin", Some(&binary), Vec::new(), MINUTE).await.unwrap());
    assert!(!store.compare_and_set("cas-bin", None, b"z".to_vec(), MINUTE).await.unwrap());
    assert!(store.compare_and_set("cas-bin", Some(b""), b"z".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("cas-bin").await.unwrap(), Some(b"z".to_vec()));

    assert!(store.touch("v", MINUTE).await.unwrap());
    assert!(!store.touch("missing", MINUTE).await.unwrap());
    assert!(store.delete("v").await.unwrap());
    assert!(!store.delete("v").await.unwrap());
    assert_eq!(store.get("v").await.unwrap(), None);
    assert!(!store.touch("v", MINUTE).await.unwrap());

    // Logs: sequence numbers from 1, reads after a number, trimming.
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![]);
    for (i, value) in [b"a", b"b", b"c"].iter().enumerate() {
        assert_eq!(store.append("log", value.to_vec(), 10, MINUTE).await.unwrap(), i as u64 + 1);
    }
    let all = vec![(1, b"a".to_vec()), (2, b"b".to_vec()), (3, b"c".to_vec())];
    assert_eq!(store.read_after("log", 0).await.unwrap(), all);
    assert_eq!(store.read_after("log", 1).await.unwrap(), all[1..]);
    assert_eq!(store.read_after("log", 3).await.unwrap(), vec![]);
    assert_eq!(store.read_after("log", 99).await.unwrap(), vec![]);

    for i in 1..=7u64 {
        assert_eq!(store.append("trim", i.to_string().into_bytes(), 3, MINUTE).await.unwrap(), i);
    }
    let kept: Vec<u64> = store.read_after("trim", 0).await.unwrap().into_iter().map(|(seq, _)| seq).collect();
    assert_eq!(kept, vec![5, 6, 7]);
    assert_eq!(store.read_after("trim", 6).await.unwrap(), vec![(7, b"7".to_vec())]);
    // max_len 0 keeps the newest entry.
    assert_eq!(store.append("zero", b"x".to_vec(), 0, MINUTE).await.unwrap(), 1);
    assert_eq!(store.append("zero", b"y".to_vec(), 0, MINUTE).await.unwrap(), 2);
    assert_eq!(store.read_after("zero", 0).await.unwrap(), vec![(2, b"y".to_vec())]);
    // No practical bound at all.
    assert_eq!(store.append("huge", b"h".to_vec(), usize::MAX, MINUTE).await.unwrap(), 1);
    assert_eq!(store.read_after("huge", 0).await.unwrap(), vec![(1, b"h".to_vec())]);
    // Binary values survive the log encoding.
    store.append("binlog", binary.clone(), 5, MINUTE).await.unwrap();
    assert_eq!(store.read_after("binlog", 0).await.unwrap(), vec![(1, binary.clone())]);

    // A log is touched and deleted like a value; deleting restarts it.
    assert!(store.touch("log", MINUTE).await.unwrap());
    assert!(store.delete("log").await.unwrap());
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![]);
    assert!(!store.delete("log").await.unwrap());
    assert_eq!(store.append("log", b"again".to_vec(), 10, MINUTE).await.unwrap(), 1);

    // A value and a log may share a key; delete removes both.
    store.set("both", b"value".to_vec(), MINUTE).await.unwrap();
    store.append("both", b"entry".to_vec(), 10, MINUTE).await.unwrap();
    assert_eq!(store.get("both").await.unwrap(), Some(b"value".to_vec()));
    assert_eq!(store.read_after("both", 0).await.unwrap(), vec![(1, b"entry".to_vec())]);
    assert!(store.delete("both").await.unwrap());
    assert_eq!(store.get("both").await.unwrap(), None);
    assert_eq!(store.read_after("both", 0).await.unwrap(), vec![]);

    // A bounded set: up to `max` live members; a member already in is
    // admitted again; one whose liveness value is gone stops counting.
    for member in ["a", "b", "c"] {
        store.set(&format!("alive:{member}"), b"1".to_vec(), MINUTE).await.unwrap();
    }
    assert!(store.admit("room", "a", 2, "alive:", MINUTE).await.unwrap());
    assert!(store.admit("room", "b", 2, "alive:", MINUTE).await.unwrap());
    assert!(!store.admit("room", "c", 2, "alive:", MINUTE).await.unwrap(), "full");
    assert!(store.admit("room", "a", 2, "alive:", MINUTE).await.unwrap(), "already in");
    assert!(store.delete("alive:b").await.unwrap());
    assert!(store.admit("room", "c", 2, "alive:", MINUTE).await.unwrap(), "b no longer counts");
    store.set("alive:b", b"1".to_vec(), MINUTE).await.unwrap();
    assert!(!store.admit("room", "b", 2, "alive:", MINUTE).await.unwrap(), "a and c fill it");

    // Pub/sub: nothing published before subscribing, everything after, in
    // order; a publish without subscribers is fine.
    store.publish("nobody", b"lost".to_vec()).await.unwrap();
    let mut stream = subscribed(store, "chan").await;
    for i in 0..20u32 {
        store.publish("chan", i.to_be_bytes().to_vec()).await.unwrap();
    }
    for i in 0..20u32 {
        assert_eq!(next(&mut stream).await, i.to_be_bytes());
    }
    let mut other = subscribed(store, "other").await;
    store.publish("chan", b"for chan".to_vec()).await.unwrap();
    store.publish("other", b"for other".to_vec()).await.unwrap();
    assert_eq!(next(&mut other).await, b"for other");
    assert_eq!(next(&mut stream).await, b"for chan");

    // More than either store keeps for a subscriber: the memory channel's
    // 4,096, the Redis stream's (set to 100 here) and its reader's 256.
    check_gaps_are_reported(store, 6_000).await;
}

/// A subscriber that reports gaps gets every message in order while it
/// keeps up, and where it fell too far behind to get them all it is told
/// of the gap before the next message: no message is skipped silently.
async fn check_gaps_are_reported(store: &dyn StateStore, burst: u32) {
    let mut stream = store.subscribe_with_gaps("gaps");
    let deadline = Instant::now() + RECV;
    loop {
        assert!(Instant::now() < deadline, "subscription with gaps never received");
        store.publish("gaps", b"probe".to_vec()).await.unwrap();
        if let Ok(Some(delivery)) = tokio::time::timeout(Duration::from_millis(100), stream.next()).await {
            assert_eq!(delivery, Delivery::Message(b"probe".to_vec()));
            break;
        }
    }
    store.publish("gaps", b"probes-done".to_vec()).await.unwrap();
    loop {
        let delivery = tokio::time::timeout(RECV, stream.next()).await.expect("in time").expect("open");
        match delivery {
            Delivery::Message(m) if m == b"probes-done" => break,
            Delivery::Message(m) => assert_eq!(m, b"probe"),
            Delivery::Gap => panic!("a gap while keeping up"),
        }
    }
    for i in 0..burst {
        store.publish("gaps", i.to_be_bytes().to_vec()).await.unwrap();
    }
    let (mut last, mut gap_before, mut gaps) = (None::<u32>, false, 0);
    while last != Some(burst - 1) {
        match tokio::time::timeout(RECV, stream.next()).await.expect("in time").expect("open") {
            Delivery::Gap => (gap_before, gaps) = (true, gaps + 1),
            Delivery::Message(message) => {
                let i = u32::from_be_bytes(message.as_slice().try_into().expect("a burst message"));
                let follows = last.map_or(i == 0, |l| i == l + 1);
                assert!(follows || gap_before, "message {i} after {last:?} with no gap reported");
                (gap_before, last) = (false, Some(i));
            }
        }
    }
    assert!(gaps >= 1, "{burst} unread messages overflow every store, and the loss is reported");
}

/// Expiry, asserted identically for any store, with short TTLs.
async fn check_expiry(store: &dyn StateStore) {
    let short = Duration::from_millis(200);
    let past = Duration::from_millis(450);

    store.set("v", b"x".to_vec(), short).await.unwrap();
    assert_eq!(store.get("v").await.unwrap(), Some(b"x".to_vec()));
    tokio::time::sleep(past).await;
    assert_eq!(store.get("v").await.unwrap(), None);
    assert!(!store.touch("v", MINUTE).await.unwrap());
    assert!(!store.delete("v").await.unwrap());
    assert!(store.set_if_absent("v", b"y".to_vec(), MINUTE).await.unwrap());
    assert_eq!(store.get("v").await.unwrap(), Some(b"y".to_vec()));

    // set_if_absent's own TTL, and touch renewing one.
    assert!(store.set_if_absent("nx", b"1".to_vec(), short).await.unwrap());
    store.set("renewed", b"r".to_vec(), Duration::from_millis(300)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(store.touch("renewed", Duration::from_secs(5)).await.unwrap());
    tokio::time::sleep(past).await;
    assert_eq!(store.get("nx").await.unwrap(), None);
    assert_eq!(store.get("renewed").await.unwrap(), Some(b"r".to_vec()));
    // touch may also shorten.
    assert!(store.touch("renewed", short).await.unwrap());
    tokio::time::sleep(past).await;
    assert_eq!(store.get("renewed").await.unwrap(), None);

    // Logs expire whole, and an expired log starts again at 1; appending
    // renews the whole log's TTL.
    assert_eq!(store.append("log", b"a".to_vec(), 10, short).await.unwrap(), 1);
    assert_eq!(store.append("log", b"b".to_vec(), 10, short).await.unwrap(), 2);
    tokio::time::sleep(past).await;
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![]);
    assert!(!store.touch("log", MINUTE).await.unwrap());
    assert_eq!(store.append("log", b"c".to_vec(), 10, short).await.unwrap(), 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(store.append("log", b"d".to_vec(), 10, Duration::from_secs(5)).await.unwrap(), 2);
    tokio::time::sleep(past).await;
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![(1, b"c".to_vec()), (2, b"d".to_vec())]);
    assert!(store.touch("log", short).await.unwrap());
    tokio::time::sleep(past).await;
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![]);
    assert_eq!(store.append("log", b"e".to_vec(), 10, MINUTE).await.unwrap(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_and_redis_have_the_same_semantics() {
    check_semantics(&*MemoryStore::new()).await;
    let server = RedisServer::start();
    let redis = redis_store(&server, "semantics").await;
    redis.set_stream_max_len(100);
    check_semantics(&*redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_and_redis_expire_alike() {
    let server = RedisServer::start();
    let redis = redis_store(&server, "expiry").await;
    let memory = MemoryStore::new();
    tokio::join!(check_expiry(&*memory), check_expiry(&*redis));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_values_logs_and_messages() {
    let server = RedisServer::start();
    let a = redis_store(&server, "shared").await;
    let b = redis_store(&server, "shared").await;

    a.set("k", b"from a".to_vec(), MINUTE).await.unwrap();
    assert_eq!(b.get("k").await.unwrap(), Some(b"from a".to_vec()));
    assert!(!b.set_if_absent("k", b"from b".to_vec(), MINUTE).await.unwrap());
    assert!(b.delete("k").await.unwrap());
    assert_eq!(a.get("k").await.unwrap(), None);

    for i in 1..=10u64 {
        let store = if i % 2 == 0 { &a } else { &b };
        assert_eq!(store.append("log", vec![i as u8], 100, MINUTE).await.unwrap(), i);
    }
    let seqs: Vec<u64> = a.read_after("log", 0).await.unwrap().into_iter().map(|(seq, _)| seq).collect();
    assert_eq!(seqs, (1..=10).collect::<Vec<_>>());

    // B hears all of A's messages, in order.
    let mut on_b = b.subscribe_ready("events").await.unwrap();
    let mut on_a = a.subscribe_ready("events").await.unwrap();
    for i in 0..100u32 {
        a.publish("events", format!("message {i}").into_bytes()).await.unwrap();
    }
    for i in 0..100u32 {
        assert_eq!(next(&mut on_b).await, format!("message {i}").into_bytes());
        assert_eq!(next(&mut on_a).await, format!("message {i}").into_bytes());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespaces_isolate() {
    let server = RedisServer::start();
    let one = redis_store(&server, "one").await;
    let two = redis_store(&server, "two").await;
    assert_eq!(one.namespace(), "one");

    one.set("k", b"1".to_vec(), MINUTE).await.unwrap();
    assert_eq!(two.get("k").await.unwrap(), None);
    assert!(two.set_if_absent("k", b"2".to_vec(), MINUTE).await.unwrap());
    assert_eq!(one.get("k").await.unwrap(), Some(b"1".to_vec()));
    assert_eq!(one.append("log", b"x".to_vec(), 10, MINUTE).await.unwrap(), 1);
    assert_eq!(two.append("log", b"y".to_vec(), 10, MINUTE).await.unwrap(), 1);
    assert!(two.delete("k").await.unwrap());
    assert_eq!(one.get("k").await.unwrap(), Some(b"1".to_vec()));

    let mut heard_by_two = two.subscribe_ready("chan").await.unwrap();
    one.publish("chan", b"for one only".to_vec()).await.unwrap();
    two.publish("chan", b"for two".to_vec()).await.unwrap();
    assert_eq!(next(&mut heard_by_two).await, b"for two");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_to_nothing_fails_clearly() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let started = Instant::now();
    let error = RedisStore::connect(&format!("redis://127.0.0.1:{port}"), "ns").await.unwrap_err();
    assert!(error.0.contains("connect"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let error = RedisStore::connect(&format!("redis://:hunter2@127.0.0.1:{port}"), "ns").await.unwrap_err();
    assert!(error.0.contains("connect") && !error.0.contains("hunter2"), "{error}");
    let error = RedisStore::connect("not a url", "ns").await.unwrap_err();
    assert!(error.0.contains("invalid url"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_end_when_the_store_is_dropped() {
    let server = RedisServer::start();
    let store = redis_store(&server, "drop").await;
    let mut ready = store.subscribe_ready("chan").await.unwrap();
    let mut plain = store.subscribe("chan");
    drop(store);
    let ended = tokio::time::timeout(RECV, async { (ready.next().await, plain.next().await) }).await;
    assert_eq!(ended.expect("streams end after the store is dropped"), (None, None));
}

/// Retries `op` until it succeeds, for at most 15 s.
async fn eventually<T, F, Fut>(what: &str, mut op: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StateError>>,
{
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match op().await {
            Ok(value) => return value,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{what} still failing after the restart: {e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn survives_a_redis_outage_and_restart() {
    let mut server = RedisServer::start();
    let store = redis_store(&server, "outage").await;
    let listener = redis_store(&server, "outage").await;

    store.set("kept", b"before".to_vec(), MINUTE).await.unwrap();
    store.append("log", b"first".to_vec(), 10, MINUTE).await.unwrap();
    let mut established = listener.subscribe_ready("chan").await.unwrap();
    let mut plain = listener.subscribe("chan");
    store.publish("chan", b"before outage".to_vec()).await.unwrap();
    assert_eq!(next(&mut established).await, b"before outage");

    tokio::task::block_in_place(|| server.stop());

    // Every operation fails, promptly, naming itself.
    let bound = Duration::from_secs(8);
    macro_rules! fails {
        ($op:expr, $name:expr) => {{
            let started = Instant::now();
            let result = tokio::time::timeout(Duration::from_secs(20), $op).await.expect("bounded");
            let error = result.expect_err(concat!($name, " fails while redis is down"));
            assert!(error.0.contains($name), "{error}");
            assert!(started.elapsed() < bound, "{} took {:?}", $name, started.elapsed());
        }};
    }
    fails!(store.get("kept"), "get");
    fails!(store.set("k", b"x".to_vec(), MINUTE), "set");
    fails!(store.set_if_absent("k", b"x".to_vec(), MINUTE), "set_if_absent");
    fails!(store.delete("k"), "delete");
    fails!(store.touch("k", MINUTE), "touch");
    fails!(store.compare_and_set("k", None, b"x".to_vec(), MINUTE), "compare_and_set");
    fails!(store.append("log", b"x".to_vec(), 10, MINUTE), "append");
    fails!(store.read_after("log", 0), "read_after");
    fails!(store.publish("chan", b"lost".to_vec()), "publish");

    tokio::task::block_in_place(|| server.restart());

    // Data written before the restart is back (append-only file) and
    // operations succeed again.
    let kept = eventually("get", || store.get("kept")).await;
    assert_eq!(kept, Some(b"before".to_vec()));
    assert_eq!(store.read_after("log", 0).await.unwrap(), vec![(1, b"first".to_vec())]);
    assert_eq!(store.append("log", b"second".to_vec(), 10, MINUTE).await.unwrap(), 2);
    eventually("listener get", || listener.get("kept")).await;

    // The subscriptions made before the outage resubscribed by
    // themselves: they deliver what is published after the restart.
    for stream in [&mut established, &mut plain] {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            assert!(Instant::now() < deadline, "no message after the restart");
            store.publish("chan", b"after restart".to_vec()).await.unwrap();
            match tokio::time::timeout(Duration::from_millis(200), stream.next()).await {
                Ok(Some(message)) if message == b"after restart" => break,
                Ok(Some(message)) => assert_eq!(message, b"before outage"),
                Ok(None) => panic!("the subscription ended"),
                Err(_) => {}
            }
        }
    }
}

/// Counts to `n` from `n` concurrent tasks, each a read and a
/// compare-and-set retried until it lands: no increment is lost.
async fn check_concurrent_increments(store: Arc<dyn StateStore>, n: usize) {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for _ in 0..10_000 {
                    let before = store.get("counter").await.unwrap();
                    let count: u64 =
                        before.as_deref().map_or(0, |b| std::str::from_utf8(b).unwrap().parse().unwrap());
                    let next = (count + 1).to_string().into_bytes();
                    if store.compare_and_set("counter", before.as_deref(), next, MINUTE).await.unwrap() {
                        return;
                    }
                    tokio::task::yield_now().await;
                }
                panic!("an increment never landed");
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(store.get("counter").await.unwrap(), Some(n.to_string().into_bytes()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_and_set_loses_no_concurrent_update_in_memory_or_on_redis() {
    check_concurrent_increments(MemoryStore::new(), 50).await;
    let server = RedisServer::start();
    let redis: Arc<dyn StateStore> = redis_store(&server, "cas-race").await;
    check_concurrent_increments(redis, 50).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_command_after_redis_returns_succeeds() {
    let mut server = RedisServer::start();
    let store = redis_store(&server, "blip").await;
    store.set("kept", b"v".to_vec(), MINUTE).await.unwrap();
    // Nothing is asked during the outage, as on an idle instance: the
    // store still holds the connection Redis closed.
    tokio::task::block_in_place(|| {
        server.stop();
        server.restart();
    });
    // Redis answers again (a fresh client proves it), and the very first
    // command of the old store succeeds: no stale failure reaches a caller.
    eventually("a fresh connection", || async {
        RedisStore::connect(&server.url(), "probe").await.map(|_| ())
    })
    .await;
    assert_eq!(store.get("kept").await.unwrap(), Some(b"v".to_vec()));
    assert!(store.touch("kept", MINUTE).await.unwrap());
    assert!(store.compare_and_set("kept", Some(b"v"), b"w".to_vec(), MINUTE).await.unwrap());
}

fn signal(server: &RedisServer, name: &str) {
    let pid = server.pid().expect("redis-server runs").to_string();
    let status = std::process::Command::new("kill").args([name, &pid]).status().unwrap();
    assert!(status.success(), "kill {name} {pid}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_redis_fails_operations_in_bounded_time() {
    let server = RedisServer::start();
    let store = redis_store(&server, "hung").await;
    store.set("k", b"v".to_vec(), MINUTE).await.unwrap();

    signal(&server, "-STOP");
    let started = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(20), store.get("k")).await.expect("bounded");
    signal(&server, "-CONT");
    let error = result.expect_err("get fails while redis does not answer");
    assert!(error.0.contains("get k"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(8), "took {:?}", started.elapsed());

    assert_eq!(eventually("get", || store.get("k")).await, Some(b"v".to_vec()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribing_outside_a_runtime_starts_on_first_poll() {
    let server = RedisServer::start();
    let store = redis_store(&server, "lazy").await;
    let outside = Arc::clone(&store);
    let mut stream = std::thread::spawn(move || outside.subscribe("chan")).join().unwrap();
    let deadline = Instant::now() + RECV;
    loop {
        assert!(Instant::now() < deadline, "the lazily started subscription never received");
        store.publish("chan", b"hello".to_vec()).await.unwrap();
        if let Ok(message) = tokio::time::timeout(Duration::from_millis(100), stream.next()).await {
            assert_eq!(message, Some(b"hello".to_vec()));
            break;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_started_while_redis_is_down_connects_when_it_is_up() {
    let mut server = RedisServer::start();
    tokio::task::block_in_place(|| server.stop());
    let store = RedisStore::start(&server.url(), "late").expect("a valid url is enough");
    assert!(!store.is_connected());
    let error = store.get("k").await.unwrap_err();
    assert!(error.0.contains("not connected yet"), "{error}");
    assert!(store.append("log", b"x".to_vec(), 10, MINUTE).await.is_err());
    tokio::task::block_in_place(|| server.restart());
    eventually("get", || store.get("k")).await;
    assert!(store.is_connected());
    store.set("k", b"v".to_vec(), MINUTE).await.unwrap();
    assert_eq!(store.get("k").await.unwrap(), Some(b"v".to_vec()));
    assert!(RedisStore::start("not a url", "x").is_err(), "only an invalid url fails at once");
}

/// `n` tasks over `stores` ask to join a set bounded to `max`: exactly
/// `max` get in.
async fn check_concurrent_admissions(stores: &[Arc<dyn StateStore>], n: usize, max: usize) {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let store = Arc::clone(&stores[i % stores.len()]);
            tokio::spawn(async move {
                let member = format!("m{i}");
                store.set(&format!("live:{member}"), b"1".to_vec(), MINUTE).await.unwrap();
                store.admit("bounded", &member, max, "live:", MINUTE).await.unwrap()
            })
        })
        .collect();
    let mut admitted = 0;
    for task in tasks {
        admitted += usize::from(task.await.unwrap());
    }
    assert_eq!(admitted, max, "{n} asked, the bound is {max}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admissions_never_exceed_their_bound_in_memory_or_over_two_redis_instances() {
    check_concurrent_admissions(&[MemoryStore::new()], 50, 10).await;
    let server = RedisServer::start();
    let one: Arc<dyn StateStore> = redis_store(&server, "admit-race").await;
    let two: Arc<dyn StateStore> = redis_store(&server, "admit-race").await;
    check_concurrent_admissions(&[one, two], 50, 10).await;
}
