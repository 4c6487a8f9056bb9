//! A traffic read on every core: the lines of a file parsed a batch at a
//! time on every core, then taken in their order; a window of a capture's
//! requests read again and parsed at once before they are explained in
//! order. What is held at once is bounded by the batch's bytes.
//!
//! The threads are started once for a whole read (a [`Crew`]), not for
//! each batch: a capture of 100,000 small requests is some 800 batches,
//! and a thread started for each cost more in the kernel (its stack, its
//! heap's first pages) than its work saved.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};

use super::{Lines, Parsed};
use crate::workspace::line_file::Span;

/// Text of lines (or of requests read again) taken together at most.
pub(in crate::traffic) const BATCH_BYTES: usize = 4 << 20;
/// Lines or requests taken together at most.
pub(in crate::traffic) const BATCH_ITEMS: usize = 256;

/// Threads that do `f` to the items of a [`Job`] for as long as a read
/// lasts; the calling thread helps with each job when it has nothing else
/// to do, so the threads work on the next batch while it takes in the last.
pub(in crate::traffic) struct Crew<'f, T, R> {
    f: &'f (dyn Fn(&mut T) -> R + Sync),
    /// Where each thread's jobs go.
    workers: Vec<mpsc::Sender<Arc<Job<T, R>>>>,
}

/// Items to do `f` to, taken one at a time by whichever thread is free.
pub(in crate::traffic) struct Job<T, R> {
    /// Each item, and `f` of it once done.
    slots: Vec<Mutex<(Option<T>, Option<R>)>>,
    /// The next item not taken yet.
    next: AtomicUsize,
    /// Items done; the thread that does the last says so under `lock`.
    done: AtomicUsize,
    lock: Mutex<()>,
    all_done: Condvar,
    /// `f` panicked on another thread.
    failed: AtomicBool,
}

impl<T, R> Job<T, R> {
    /// Does `f` to items not taken yet, until none is left.
    fn work(&self, f: &(dyn Fn(&mut T) -> R + Sync)) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.slots.get(i) else {
                return;
            };
            let r = {
                let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                let item = s.0.as_mut().expect("an item is taken once");
                // Counted done even if `f` panics, so no thread waits for
                // it forever; the panic goes on once it is counted.
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
                if let Ok(r) = r {
                    s.1 = Some(r);
                    None
                } else {
                    self.failed.store(true, Ordering::Relaxed);
                    r.err()
                }
            };
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.slots.len() {
                let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.all_done.notify_all();
            }
            if let Some(panic) = r {
                std::panic::resume_unwind(panic);
            }
        }
    }
}

/// Runs `body` with a [`Crew`] doing `f` (one thread per core beside the
/// calling one); the threads end with it.
pub(in crate::traffic) fn with_crew<T: Send, R: Send, O>(
    f: &(dyn Fn(&mut T) -> R + Sync),
    body: impl FnOnce(&Crew<T, R>) -> O,
) -> O {
    let others = crate::assembly::tokens::cores().saturating_sub(1);
    std::thread::scope(|s| {
        let workers = (0..others)
            .map(|_| {
                let (to, jobs) = mpsc::channel::<Arc<Job<T, R>>>();
                s.spawn(move || {
                    for job in jobs {
                        job.work(f);
                    }
                });
                to
            })
            .collect();
        // The senders are dropped with the crew: the threads end.
        body(&Crew { f, workers })
    })
}

impl<T: Send, R: Send> Crew<'_, T, R> {
    /// Hands `items` to the threads (they start at once); [`Crew::finish`]
    /// gets them back with `f` of each.
    pub(in crate::traffic) fn start(&self, items: Vec<T>) -> Arc<Job<T, R>> {
        let job = Arc::new(Job {
            slots: items
                .into_iter()
                .map(|x| Mutex::new((Some(x), None)))
                .collect(),
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            lock: Mutex::new(()),
            all_done: Condvar::new(),
            failed: AtomicBool::new(false),
        });
        // Even one item: it is done while this thread goes on.
        if !job.slots.is_empty() {
            for to in &self.workers {
                // A thread that ended has panicked: the scope says so.
                let _ = to.send(job.clone());
            }
        }
        job
    }

    /// The items of `job` with `f` of each, in their order: this thread
    /// does what the others have not taken, then waits for theirs.
    pub(in crate::traffic) fn finish(&self, job: Arc<Job<T, R>>) -> Vec<(T, R)> {
        job.work(self.f);
        let mut held = job.lock.lock().unwrap_or_else(|e| e.into_inner());
        while job.done.load(Ordering::Acquire) < job.slots.len() {
            held = job.all_done.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        drop(held);
        assert!(
            !job.failed.load(Ordering::Relaxed),
            "a thread of the crew panicked"
        );
        // The threads may still hold the job (each drops it as it sees
        // nothing left): the slots are taken from it, not unwrapped.
        job.slots
            .iter()
            .map(|slot| {
                let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
                let (Some(x), Some(r)) = (s.0.take(), s.1.take()) else {
                    unreachable!("every item is done once")
                };
                (x, r)
            })
            .collect()
    }
}

/// A line waiting to be parsed: its text, where it is in its file,
/// whether its request is left there (read again later), and the values
/// held already when it was read (`usize::MAX`: it is past
/// [`super::MAX_LINES`]).
pub(in crate::traffic) type Waiting = (String, Option<Span>, bool, usize);

/// What a line parses into: its cost in values and what is taken of it
/// (None for a blank line; no [`Parsed`] for a line that cannot fit).
pub(in crate::traffic) type Prepared = Option<(usize, Option<Parsed>)>;

/// How a waiting line is parsed ([`super::head::first_pass`], then
/// [`super::prepare`]), on any core; not at all when its tree could not
/// fit beside what was held when it was read (what is held only grows:
/// [`Lines::push_parsed`] will skip it), or when it is past the lines read.
pub(in crate::traffic) fn parse_waiting((l, _, lazy, held): &mut Waiting) -> Prepared {
    (!l.trim().is_empty()).then(|| {
        let cost = super::parse_cost(l);
        let fits = held.saturating_add(cost) <= super::MAX_VALUES;
        (
            cost,
            fits.then(|| super::prepare(super::head::first_pass(l, *lazy), *lazy)),
        )
    })
}

/// Lines read from a file, waiting to be parsed together; the batch
/// before them is being parsed meanwhile.
pub(in crate::traffic) struct Batch<'c, 'f> {
    crew: &'c Crew<'f, Waiting, Prepared>,
    lines: Vec<Waiting>,
    bytes: usize,
    parsing: Option<Arc<Job<Waiting, Prepared>>>,
    /// Lines of the batch being parsed.
    ahead: usize,
}

impl<'c, 'f> Batch<'c, 'f> {
    pub(in crate::traffic) fn new(crew: &'c Crew<'f, Waiting, Prepared>) -> Self {
        Batch {
            crew,
            lines: Vec::new(),
            bytes: 0,
            parsing: None,
            ahead: 0,
        }
    }

    /// Adds a line; when the batch is full, the one before it is taken
    /// into `into` and this one starts being parsed.
    pub(in crate::traffic) fn add(&mut self, line: &str, span: Option<Span>, into: &mut Lines) {
        self.bytes += line.len();
        let lazy = into.lazy && span.is_some();
        // This line's number among those read (the lines before it not
        // taken in yet included).
        let n = into.seen + self.ahead + self.lines.len() + 1;
        let held = if n > super::MAX_LINES {
            usize::MAX
        } else {
            into.values
        };
        self.lines.push((line.to_string(), span, lazy, held));
        if self.bytes >= BATCH_BYTES || self.lines.len() >= BATCH_ITEMS {
            self.take_parsed(into);
            self.start();
        }
    }

    /// Takes the batch being parsed into `into`, in order, as its lines
    /// would have been taken one by one.
    fn take_parsed(&mut self, into: &mut Lines) {
        self.ahead = 0;
        if let Some(job) = self.parsing.take() {
            for ((line, span, _, _), p) in self.crew.finish(job) {
                into.span = span;
                into.push_parsed(&line, p);
            }
        }
    }

    /// Takes every line read into `into`, in order.
    pub(in crate::traffic) fn flush(&mut self, into: &mut Lines) {
        self.take_parsed(into);
        if !self.lines.is_empty() {
            self.start();
            self.take_parsed(into);
        }
    }

    /// Starts parsing the lines waiting.
    fn start(&mut self) {
        self.ahead = self.lines.len();
        self.parsing = Some(self.crew.start(std::mem::take(&mut self.lines)));
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crew_gives_back_every_item_in_order_with_what_was_done_to_it() {
        let f = |x: &mut u64| {
            *x += 1;
            *x * 10
        };
        with_crew(&f, |crew| {
            for n in [0u64, 1, 2, 3, 257, 1000] {
                let out = crew.finish(crew.start((0..n).collect()));
                let want: Vec<(u64, u64)> = (0..n).map(|i| (i + 1, (i + 1) * 10)).collect();
                assert_eq!(out, want, "{n} items");
            }
            // Two jobs out at once come back as they were handed out.
            let a = crew.start((0..300).collect());
            let b = crew.start((1000..1300).collect());
            assert_eq!(crew.finish(a)[299], (300, 3000));
            assert_eq!(crew.finish(b)[0], (1001, 10010));
        });
    }

    #[test]
    fn a_line_that_cannot_be_taken_is_not_parsed() {
        let line = r#"{"endpoint":"/v1/messages","request":{"model":"m"}}"#.to_string();
        let cost = super::super::parse_cost(&line);
        let mut fits = (line.clone(), None, false, 0);
        assert!(matches!(parse_waiting(&mut fits), Some((c, Some(_))) if c == cost));
        // Past the lines read, or beside what would leave no room for it.
        for held in [usize::MAX, super::super::MAX_VALUES - cost + 1] {
            let mut no = (line.clone(), None, false, held);
            assert!(matches!(parse_waiting(&mut no), Some((c, None)) if c == cost));
        }
        let mut blank = ("  ".to_string(), None, false, 0);
        assert!(parse_waiting(&mut blank).is_none());
    }

    #[test]
    fn a_panic_on_any_thread_reaches_the_caller_rather_than_hanging_it() {
        for bad in [0u32, 7, 255] {
            let f = move |x: &mut u32| {
                assert!(*x != bad, "item {bad}");
                *x
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                with_crew(&f, |crew| crew.finish(crew.start((0..256).collect())).len())
            }));
            assert!(r.is_err(), "item {bad}");
        }
    }
}
