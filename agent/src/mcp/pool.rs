//! Bounded request execution for the MCP server: a lane is a fixed number of worker threads and
//! a bounded queue. A job that finds the queue full is refused at once (the caller answers
//! "server busy"), so no burst of requests can exhaust threads or memory.
//!
//! Workers are started on demand, up to the lane's limit, with `std::thread::Builder` (a failed
//! spawn is an error the caller reports, never a panic); they live until the lane is shut down.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Why a job was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The queue holds `queued` jobs already (its capacity).
    Full { queued: usize, running: usize },
    /// No worker thread could be started (the OS refused a new thread).
    NoWorker,
}

#[derive(Default)]
struct LaneState {
    queue: VecDeque<(Job, Ticket)>,
    running: usize,
    workers: usize,
    /// Workers waiting for a job.
    waiting: usize,
    shutdown: bool,
}

/// One lane: `max_workers` threads behind a queue of at most `capacity` jobs.
pub(crate) struct Lane {
    name: &'static str,
    max_workers: usize,
    capacity: usize,
    state: Mutex<LaneState>,
    /// Signalled when a job is queued or the lane shuts down.
    work: Condvar,
    /// Signalled when the lane has nothing queued and nothing running.
    idle: Condvar,
}

impl std::fmt::Debug for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lane")
            .field("name", &self.name)
            .field("max_workers", &self.max_workers)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

/// Completion of one queued job: [`Ticket::wait`] blocks until it ran.
#[derive(Debug, Clone, Default)]
pub struct Ticket(Arc<(Mutex<bool>, Condvar)>);

impl Ticket {
    /// Blocks until the job has run (and its answer was sent).
    pub fn wait(&self) {
        let (done, cv) = &*self.0;
        let mut d = done.lock().unwrap_or_else(|e| e.into_inner());
        while !*d {
            d = cv.wait(d).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Whether the job has run.
    pub fn is_finished(&self) -> bool {
        *self.0.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn finish(&self) {
        let (done, cv) = &*self.0;
        *done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
    }
}

impl Lane {
    pub(crate) fn new(name: &'static str, max_workers: usize, capacity: usize) -> Arc<Lane> {
        Arc::new(Lane {
            name,
            max_workers: max_workers.max(1),
            capacity,
            state: Mutex::new(LaneState::default()),
            work: Condvar::new(),
            idle: Condvar::new(),
        })
    }

    /// Worker threads this lane has started (never more than its limit).
    #[cfg(test)]
    pub(crate) fn workers(&self) -> usize {
        self.lock().workers
    }

    fn lock(&self) -> MutexGuard<'_, LaneState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `job`, starting a worker when none is free and the limit allows; refuses when
    /// the queue is full or no worker exists and none can be started.
    pub(crate) fn submit(
        self: &Arc<Self>,
        job: impl FnOnce() + Send + 'static,
    ) -> Result<Ticket, Refused> {
        let mut st = self.lock();
        if st.shutdown {
            return Err(Refused::NoWorker);
        }
        if st.queue.len() >= self.capacity {
            return Err(Refused::Full {
                queued: st.queue.len(),
                running: st.running,
            });
        }
        // One more worker when every live one is busy with the jobs already queued.
        if st.workers < self.max_workers && st.waiting <= st.queue.len() {
            let me = self.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("mcp-{}", self.name))
                .spawn(move || me.work_loop());
            if spawned.is_ok() {
                st.workers += 1;
            } else if st.workers == 0 {
                return Err(Refused::NoWorker);
            }
        }
        let ticket = Ticket::default();
        st.queue.push_back((Box::new(job), ticket.clone()));
        drop(st);
        self.work.notify_one();
        Ok(ticket)
    }

    fn work_loop(self: Arc<Self>) {
        let mut st = self.lock();
        loop {
            if let Some((job, ticket)) = st.queue.pop_front() {
                st.running += 1;
                drop(st);
                // A panicking job must not take the worker down; the job answers for itself.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                ticket.finish();
                st = self.lock();
                st.running -= 1;
                if st.queue.is_empty() && st.running == 0 {
                    self.idle.notify_all();
                }
                continue;
            }
            if st.shutdown {
                st.workers -= 1;
                return;
            }
            st.waiting += 1;
            st = self.work.wait(st).unwrap_or_else(|e| e.into_inner());
            st.waiting -= 1;
        }
    }

    /// Blocks until nothing is queued or running.
    pub(crate) fn wait_idle(&self) {
        let mut st = self.lock();
        while !st.queue.is_empty() || st.running > 0 {
            st = self.idle.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Lets the workers finish what is queued, then exit.
    pub(crate) fn shutdown(&self) {
        self.lock().shutdown = true;
        self.work.notify_all();
    }

    /// (queued, running) right now.
    #[cfg(test)]
    pub(crate) fn load(&self) -> (usize, usize) {
        let st = self.lock();
        (st.queue.len(), st.running)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn a_full_queue_refuses_and_every_accepted_job_runs() {
        let lane = Lane::new("test", 2, 3);
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let ran = Arc::new(AtomicUsize::new(0));
        let mut tickets = Vec::new();
        let mut refused = 0;
        for _ in 0..20 {
            let (g, r) = (gate.clone(), ran.clone());
            match lane.submit(move || {
                let (open, cv) = &*g;
                let mut o = open.lock().unwrap();
                while !*o {
                    o = cv.wait(o).unwrap();
                }
                r.fetch_add(1, Ordering::SeqCst);
            }) {
                Ok(t) => tickets.push(t),
                Err(Refused::Full { queued, .. }) => {
                    assert_eq!(queued, 3);
                    refused += 1;
                }
                Err(Refused::NoWorker) => panic!("threads are available"),
            }
            // Let a started worker pick its job before the next submit.
            std::thread::sleep(Duration::from_millis(5));
        }
        // 2 running + 3 queued accepted, the rest refused.
        assert_eq!(tickets.len(), 5);
        assert_eq!(refused, 15);
        assert_eq!(lane.load(), (3, 2));
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        for t in &tickets {
            t.wait();
            assert!(t.is_finished());
        }
        lane.wait_idle();
        assert_eq!(ran.load(Ordering::SeqCst), 5);
        assert!(lane.lock().workers <= 2);
        // A panicking job neither kills its worker nor hangs its ticket.
        lane.submit(|| panic!("boom")).unwrap().wait();
        let r = ran.clone();
        lane.submit(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap()
        .wait();
        assert_eq!(ran.load(Ordering::SeqCst), 6);
        lane.shutdown();
        assert!(lane.submit(|| {}).is_err());
    }
}
