//! Standard input read on a thread of its own, so that a lookup can tell whether more
//! input has arrived without waiting for it: it answers what it holds before it would
//! wait (somebody may be waiting for those answers), and otherwise keeps gathering.
//!
//! A buffer alone cannot tell: once it is used up, the next read may return at once (a
//! file, a pipe a fast program fills) or block (a person typing), and answering every
//! time the buffer runs out would cut a piped batch of a million addresses into small
//! pieces answered one after another.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread;

/// Bytes read at a time.
const BLOCK: usize = 64 * 1024;

/// Blocks read ahead at most (memory stays bounded when the input comes faster than
/// it is answered).
const AHEAD: usize = 16;

/// Standard input, read ahead on its own thread.
pub struct Arriving {
    blocks: Receiver<io::Result<Vec<u8>>>,
    /// The block being read, and how much of it is.
    block: Vec<u8>,
    at: usize,
    /// A block (or error) that [`Arriving::has_arrived`] took from the thread.
    next: Option<io::Result<Vec<u8>>>,
}

impl Arriving {
    /// Starts reading standard input.
    pub fn stdin() -> Self {
        let (send, blocks) = mpsc::sync_channel(AHEAD);
        // Not joined: it ends at the end of the input, or with the process when it is
        // waiting on input nobody will read.
        thread::spawn(move || {
            let mut stdin = io::stdin().lock();
            loop {
                let mut block = vec![0; BLOCK];
                let read = match stdin.read(&mut block) {
                    Ok(0) => return,
                    Ok(n) => {
                        block.truncate(n);
                        Ok(block)
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = read.is_err();
                if send.send(read).is_err() || failed {
                    return;
                }
            }
        });
        Arriving {
            blocks,
            block: Vec::new(),
            at: 0,
            next: None,
        }
    }

    /// Whether a read would return at once: input not yet read is here, or the input
    /// has ended.
    pub fn has_arrived(&mut self) -> bool {
        if self.at < self.block.len() || self.next.is_some() {
            return true;
        }
        match self.blocks.try_recv() {
            Ok(next) => {
                self.next = Some(next);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => true,
        }
    }
}

impl Read for Arriving {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.block.len() {
            let next = match self.next.take() {
                Some(next) => next,
                None => match self.blocks.recv() {
                    Ok(next) => next,
                    // The thread ended: the end of the input.
                    Err(_) => return Ok(0),
                },
            };
            (self.block, self.at) = (next?, 0);
        }
        let n = buf.len().min(self.block.len() - self.at);
        buf[..n].copy_from_slice(&self.block[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
