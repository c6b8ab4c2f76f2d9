//! Lookups answered on every core: the questions are cut into chunks, threads answer
//! the chunks into their own buffers, and the main thread writes the buffers in order
//! while it reads the next questions.
//!
//! A profiler's batch of a million addresses is the case this is for: one core answers
//! and formats about a million symbfile addresses in 1.4 s, and writing the answers
//! (half a kilobyte each) costs the main thread a fifth of that again. The answers and
//! their order are those of one thread answering each question in turn; memory stays
//! bounded (a few chunks in flight); answers are never held back while the next input
//! is awaited ([`lookups::drive`] asks for them first).

use std::collections::VecDeque;
use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::thread;

use crate::common::{stdout, Outcome, Result};
use crate::lookups::{self, LookupFlags, Placeholder, Question, BATCH};

/// Questions in a chunk: enough that handing a chunk to a thread costs nothing next to
/// answering it (a few milliseconds), few enough that the chunks in flight stay small.
const CHUNK: usize = 4096;

/// Threads used at most, however many cores there are.
const MAX_THREADS: usize = 16;

/// Chunks handed out and not yet written, per thread.
const IN_FLIGHT_PER_THREAD: u64 = 2;

/// Answers the questions [`lookups::drive`] reads on as many threads as the machine has
/// cores, each bad line with `placeholder`, writing to standard output in the order
/// asked. Each thread makes its own scratch state with `state` once; `answer` appends
/// the answers of up to [`BATCH`] consecutive good addresses, in order, to the buffer
/// it is given (a few at once let a format overlap their memory waits).
pub fn run<S>(
    args: &[String],
    flags: LookupFlags,
    placeholder: &Placeholder,
    state: impl Fn() -> S + Sync,
    answer: impl Fn(&mut S, &[u64], &mut Vec<u8>) -> io::Result<()> + Sync,
) -> Result<Outcome> {
    let threads = thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(MAX_THREADS);
    let (jobs, queue) = mpsc::channel::<Chunk>();
    let queue = Mutex::new(queue);
    let (done, answers) = mpsc::channel::<Answered>();
    let respond = Respond {
        flags,
        placeholder,
        answer: &answer,
    };
    thread::scope(|scope| {
        for _ in 0..threads {
            let (queue, done, state, respond) = (&queue, done.clone(), &state, &respond);
            scope.spawn(move || {
                let mut scratch = state();
                let mut capacity = 0;
                // The lock is held while waiting: the other threads wait on it instead.
                while let Some(chunk) = queue.lock().ok().and_then(|q| q.recv().ok()) {
                    let mut text = Vec::with_capacity(capacity);
                    let answered = panic::catch_unwind(AssertUnwindSafe(|| {
                        respond.chunk(&mut scratch, &chunk, &mut text)
                    }));
                    // A panic (a bug) must not leave the main thread waiting for this
                    // chunk forever: it is told, and the panic goes on to the scope's end.
                    let answered = answered.unwrap_or_else(|panic| {
                        let _ = done.send(Answered {
                            seq: chunk.seq,
                            text: Err(stopped()),
                        });
                        panic::resume_unwind(panic)
                    });
                    capacity = capacity.max(text.len());
                    let sent = done.send(Answered {
                        seq: chunk.seq,
                        text: answered.map(|()| text),
                    });
                    if sent.is_err() {
                        return;
                    }
                }
            });
        }
        drop(done);
        let mut order = InOrder {
            jobs,
            answers,
            sent: 0,
            written: 0,
            arrived: VecDeque::new(),
            limit: IN_FLIGHT_PER_THREAD * threads as u64,
        };
        let mut chunk = Chunk::new();
        let mut bad = false;
        let mut ask = |out: &mut dyn Write, question: Option<Question<'_>>| -> io::Result<()> {
            let end = question.is_none();
            match question {
                Some(Question::Good(addr)) => chunk.addresses.push(addr),
                Some(Question::Bad { input, error }) => {
                    bad = true;
                    let at = chunk.addresses.len();
                    chunk.bad.push((at, input.to_owned(), error));
                }
                None => {}
            }
            let full = chunk.addresses.len() + chunk.bad.len() >= CHUNK;
            if (full || end) && !chunk.is_empty() {
                order.submit(std::mem::replace(&mut chunk, Chunk::new()), out)?;
            }
            if end {
                order.finish(out)?;
            }
            Ok(())
        };
        lookups::drive(args, &mut stdout(), &mut ask)?;
        Ok(if bad {
            Outcome::SomeInputsBad
        } else {
            Outcome::Success
        })
    })
}

/// Consecutive questions: the good addresses, and the bad lines with the number of good
/// addresses before each; `seq` is the chunk's place in the order asked.
struct Chunk {
    seq: u64,
    addresses: Vec<u64>,
    bad: Vec<(usize, String, String)>,
}

impl Chunk {
    fn new() -> Self {
        Chunk {
            seq: 0,
            addresses: Vec::with_capacity(CHUNK),
            bad: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.addresses.is_empty() && self.bad.is_empty()
    }
}

/// The answers of the chunk `seq`, or the error that stopped them.
struct Answered {
    seq: u64,
    text: io::Result<Vec<u8>>,
}

/// How a thread answers a chunk.
struct Respond<'r, A> {
    flags: LookupFlags,
    placeholder: &'r Placeholder,
    answer: &'r A,
}

impl<A> Respond<'_, A> {
    /// Writes the answers of `chunk` to `text`: the good addresses [`BATCH`] at a time,
    /// each bad line's placeholder in its place.
    fn chunk<S>(&self, scratch: &mut S, chunk: &Chunk, text: &mut Vec<u8>) -> io::Result<()>
    where
        A: Fn(&mut S, &[u64], &mut Vec<u8>) -> io::Result<()>,
    {
        let mut from = 0;
        let bad = chunk
            .bad
            .iter()
            .map(|(at, input, error)| (*at, Some((input, error))));
        let end = std::iter::once((chunk.addresses.len(), None));
        for (at, line) in bad.chain(end) {
            for batch in chunk.addresses[from..at].chunks(BATCH) {
                (self.answer)(scratch, batch, text)?;
            }
            from = at;
            if let Some((input, error)) = line {
                lookups::write_placeholder(text, self.flags, (input, error), self.placeholder)?;
            }
        }
        Ok(())
    }
}

/// The chunks handed to the threads, and their answers written in the order asked.
struct InOrder {
    jobs: Sender<Chunk>,
    answers: Receiver<Answered>,
    /// Chunks handed out.
    sent: u64,
    /// Chunks written.
    written: u64,
    /// The answers of the chunks from `written` on that have arrived.
    arrived: VecDeque<Option<io::Result<Vec<u8>>>>,
    /// Chunks in flight at most.
    limit: u64,
}

impl InOrder {
    /// Hands `chunk` to the threads, first writing answers until fewer than `limit` are
    /// in flight, then any that have arrived in order.
    fn submit(&mut self, mut chunk: Chunk, out: &mut dyn Write) -> io::Result<()> {
        while self.sent - self.written >= self.limit {
            self.write_next(out)?;
        }
        chunk.seq = self.sent;
        self.jobs.send(chunk).map_err(|_| stopped())?;
        self.sent += 1;
        while let Ok(answered) = self.answers.try_recv() {
            self.arrive(answered);
        }
        while self.arrived.front().is_some_and(Option::is_some) {
            self.write_next(out)?;
        }
        Ok(())
    }

    /// Writes every answer in flight.
    fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        while self.written < self.sent {
            self.write_next(out)?;
        }
        Ok(())
    }

    /// Waits for the answers of the next chunk to write, and writes them.
    fn write_next(&mut self, out: &mut dyn Write) -> io::Result<()> {
        while !self.arrived.front().is_some_and(Option::is_some) {
            let answered = self.answers.recv().map_err(|_| stopped())?;
            self.arrive(answered);
        }
        let text = self.arrived.pop_front().flatten().ok_or_else(stopped)??;
        self.written += 1;
        out.write_all(&text)
    }

    fn arrive(&mut self, answered: Answered) {
        let slot = (answered.seq - self.written) as usize;
        if self.arrived.len() <= slot {
            self.arrived.resize_with(slot + 1, || None);
        }
        self.arrived[slot] = Some(answered.text);
    }
}

/// The error when an answering thread stopped (it panicked).
fn stopped() -> io::Error {
    io::Error::other("the lookup threads stopped")
}
