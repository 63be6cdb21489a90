//! Per-execution memory without cgroups: the parent's watcher samples the execution's process tree
//! while it waits on the pidfd, and kills the execution (`memory_limit`) when the tree's memory exceeds
//! `memory_mb`. RLIMIT_AS bounds each process; this bounds their sum.
//!
//! The tree is walked from the execution's first process through every thread's
//! `/proc/<pid>/task/<tid>/children` (orphans are re-parented inside the tree: to the namespace's PID 1,
//! or, in the rlimits-only mode, they leave it). A sample is two-staged:
//! 1. cheap: the sum of each process's resident pages (`statm`), an upper bound of what the tree holds;
//! 2. only when that exceeds the limit: the sum of each process's proportional share of its private and
//!    shared-memory pages (`Pss_Anon` + `Pss_Shmem` of `smaps_rollup`, which walks page tables), so that
//!    the interpreter's file pages and pages a `fork` shares copy-on-write are counted once, as a memory
//!    cgroup would. The execution is killed when this exceeds the limit.
//!
//! Work per sample is bounded ([`MAX_TASKS`] tasks). Samples start every [`FIRST_INTERVAL`] and the
//! interval grows to [`MAX_INTERVAL`], and to at least [`DUTY_FACTOR`] times what the last sample took
//! (at most ~2% of a trainer core per execution). Measured on 2 shared cores: +0.07 ms of trainer CPU
//! per small single-process execution, +1 ms per 0.2 s one, ~25-50 ms per 0.4 s tree of 16 processes
//! before the duty bound. Slack, by design: what the tree can fault in between two samples (one
//! interval: 25 ms for a small tree, longer for a large one; page faulting runs at a few GB/s per busy
//! core), never more than the per-process bound (`memory_mb` x `max_processes`). The first sample of
//! a cold start waits for its exec (until then the child shares the trainer's pages). Not counted: kernel memory
//! (page tables, pipe and socket buffers, see the crate's docs) and `/tmp` pages not mapped (capped by
//! `scratch_mb`).

use std::fs::File;
use std::io::Read;
use std::time::{Duration, Instant};

/// The first sample's delay after the start, and the growth of the interval up to [`MAX_INTERVAL`].
pub const FIRST_INTERVAL: Duration = Duration::from_millis(4);
pub const MAX_INTERVAL: Duration = Duration::from_millis(25);
/// The watcher's share of a trainer core at most: the next sample waits at least this many times as long
/// as the last one took (a tree of many processes costs more per sample: it is sampled less often).
pub const DUTY_FACTOR: u32 = 50;
/// Tasks (processes and threads) visited per sample at most.
pub const MAX_TASKS: usize = 512;

pub struct MemoryWatch {
    root: libc::pid_t,
    limit_bytes: u64,
    page: u64,
    interval: Duration,
    pub next: Instant,
    buf: Vec<u8>,
}

impl MemoryWatch {
    pub fn new(root: libc::pid_t, limit_bytes: u64, start: Instant) -> Self {
        let page = rustix::param::page_size() as u64;
        Self { root, limit_bytes, page, interval: FIRST_INTERVAL, next: start + FIRST_INTERVAL, buf: Vec::new() }
    }

    /// Sample now; true when the tree holds more than the limit. Schedules the next sample.
    pub fn over_limit(&mut self, now: Instant) -> bool {
        let over = self.sample();
        self.interval = (self.interval * 5 / 4).min(MAX_INTERVAL);
        self.next = now + self.interval.max(now.elapsed() * DUTY_FACTOR);
        over
    }

    fn sample(&mut self) -> bool {
        let pids = self.tree();
        let resident: u64 = pids.iter().map(|&p| self.resident_pages(p)).sum::<u64>() * self.page;
        if resident <= self.limit_bytes {
            return false;
        }
        let proportional: u64 = pids.iter().map(|&p| self.proportional_bytes(p)).sum();
        proportional > self.limit_bytes
    }

    fn read(&mut self, path: &str) -> Option<&str> {
        self.buf.clear();
        File::open(path).ok()?.read_to_end(&mut self.buf).ok()?;
        std::str::from_utf8(&self.buf).ok()
    }

    /// The processes of the tree (the root first), at most [`MAX_TASKS`] tasks visited.
    fn tree(&mut self) -> Vec<libc::pid_t> {
        let mut pids = vec![self.root];
        let mut tasks = 0;
        let mut i = 0;
        while i < pids.len() && tasks < MAX_TASKS {
            let pid = pids[i];
            i += 1;
            let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
            let tids: Vec<String> = dir.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
            for tid in tids {
                tasks += 1;
                if tasks > MAX_TASKS {
                    break;
                }
                let Some(children) = self.read(&format!("/proc/{pid}/task/{tid}/children")) else { continue };
                let found: Vec<libc::pid_t> = children.split_whitespace().filter_map(|c| c.parse().ok()).collect();
                pids.extend(found);
            }
        }
        pids
    }

    fn resident_pages(&mut self, pid: libc::pid_t) -> u64 {
        self.read(&format!("/proc/{pid}/statm")).and_then(|s| s.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
    }

    /// `Pss_Anon` + `Pss_Shmem` (kernels before 5.8 lack them: then `Pss`, which also counts file pages).
    fn proportional_bytes(&mut self, pid: libc::pid_t) -> u64 {
        // Unreadable (not ours to trace?): its resident pages, the upper bound.
        let Some(text) = self.read(&format!("/proc/{pid}/smaps_rollup")) else {
            return self.resident_pages(pid) * self.page;
        };
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        };
        let kb = match (field("Pss_Anon:"), field("Pss_Shmem:")) {
            (Some(anon), Some(shmem)) => anon + shmem,
            _ => field("Pss:").unwrap_or(0),
        };
        kb * 1024
    }
}
