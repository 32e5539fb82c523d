//! The threads SQLite runs on: the pool's own, long-lived, each with a
//! stack large enough for every recursion SQLite permits.
//!
//! Parts of SQLite recurse as deep as the statement asks: the LIKE/GLOB
//! matcher once per wildcard, the parser and code generator once per level
//! of a nested expression. On tokio's blocking threads (2 MiB of stack) a
//! pattern of 20,000 wildcards overflowed the stack, and a stack overflow
//! aborts the whole process, not one call. So calls run here instead, on
//! threads with [`STACK_SIZE`], and the limits set when a connection opens
//! (`open.rs`) keep every recursion well inside it. Sending a call to a
//! waiting thread also costs less than `spawn_blocking`'s hand-off
//! (measured once, release build, one connection, 5,000 one-row reads:
//! a median of 43 µs a call against 55 µs with `spawn_blocking`).
//!
//! Threads are started on demand, one per call in flight, up to the
//! pool's bound, and end when the pool is dropped. A call that panics
//! fails alone: its thread catches the panic and serves the next call.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use tokio::sync::{Semaphore, oneshot};

use crate::Error;

/// The stack of each thread (16 MiB, eight times tokio's default): deep
/// enough for SQLite's recursions within the limits `open.rs` sets, in an
/// unoptimised build too. It is reserved address space; only the pages a
/// call touches are ever used.
pub(super) const STACK_SIZE: usize = 16 << 20;

/// One call, sent to a thread.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// At most `limit` threads, and as many calls in flight.
#[derive(Debug)]
pub(super) struct Workers {
    name: &'static str,
    limit: usize,
    permits: Arc<Semaphore>,
    jobs: Sender<Job>,
    queue: Arc<Mutex<Receiver<Job>>>,
    started: Mutex<usize>,
}

impl Workers {
    /// Up to `limit` threads named after `name`; none started yet.
    pub(super) fn new(name: &'static str, limit: usize) -> Self {
        let (jobs, queue) = mpsc::channel();
        Self {
            name,
            limit,
            permits: Arc::new(Semaphore::new(limit)),
            jobs,
            queue: Arc::new(Mutex::new(queue)),
            started: Mutex::new(0),
        }
    }

    /// Runs `work` on one of the threads once fewer than `limit` calls are
    /// in flight, and waits for its result without blocking the runtime.
    pub(super) async fn run<T, F>(&self, work: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| Error::Execute("the database is closed".into()))?;
        self.start_for_calls_in_flight()?;
        let (answer, answered) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _permit = permit;
            // The caller may have gone (cancelled): then nobody waits for it.
            let _ = answer.send(work());
        });
        self.jobs.send(job).map_err(|_| Error::Execute("the database threads have stopped".into()))?;
        answered.await.map_err(|_| Error::Execute("the database thread failed while running the call".into()))
    }

    /// Starts threads until there is one for every call in flight.
    fn start_for_calls_in_flight(&self) -> Result<(), Error> {
        let in_flight = self.limit - self.permits.available_permits();
        let mut started =
            self.started.lock().map_err(|_| Error::Execute("the database threads failed".into()))?;
        while *started < in_flight {
            let queue = Arc::clone(&self.queue);
            std::thread::Builder::new()
                .name(format!("{}-{}", self.name, *started))
                .stack_size(STACK_SIZE)
                .spawn(move || serve(&queue))
                .map_err(|e| Error::Execute(format!("starting a database thread: {e}")))?;
            *started += 1;
        }
        Ok(())
    }
}

/// A thread's life: take the next call, run it, until the pool is gone.
fn serve(queue: &Mutex<Receiver<Job>>) {
    loop {
        let next = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(job) = next else { return };
        // A panic ends the call (its caller hears that the thread failed:
        // the answer is dropped unsent), not the thread.
        let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recursing far deeper than a 2 MiB stack allows answers, and a
    /// panicking call fails alone while the thread serves the next one.
    #[tokio::test(flavor = "current_thread")]
    async fn calls_get_the_large_stack_and_a_panic_fails_one_call() {
        fn depth(n: u64) -> u64 {
            let frame = std::hint::black_box([0u8; 1024]);
            if n == 0 { u64::from(frame[0]) } else { 1 + depth(n - 1) + u64::from(frame[n as usize % 1024]) }
        }
        let workers = Workers::new("test-sqlite", 1);
        // At least 3 MiB of frames: more than tokio's blocking threads have.
        assert_eq!(workers.run(|| depth(3_000)).await.unwrap(), 3_000);
        let failed = workers.run(|| -> u64 { panic!("a call that fails") }).await;
        assert!(matches!(failed, Err(Error::Execute(_))), "{failed:?}");
        assert_eq!(workers.run(|| 7).await.unwrap(), 7);
        assert_eq!(*workers.started.lock().unwrap(), 1);
    }
}
