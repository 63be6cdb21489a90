//! Host uid/gid slots: which host ids an execution's root maps to, and the id maps that say so.
//!
//! The ids are one host-wide space: every trainer and reward-worker process on the host takes them in blocks,
//! a block being its process's while it holds a POSIX write lock on the block's file under [`lock_dir`]. So no
//! two processes ever hand out the same id (one process's descriptors in flight never count against another's
//! executions), and a block is free again the moment its holder exits, however it exits: the kernel drops a
//! process's POSIX locks with it, and a forked child does not inherit them.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use std::os::fd::AsRawFd;

use rustix::fs::{open, Mode, OFlags};
use rustix::process::{getegid, geteuid};

use crate::SandboxError;

/// First host uid/gid of the per-execution ids used when we run as root (an unused high range).
const SLOT_ID_BASE: u32 = 0x6000_0000;
/// Host ids handed out (one per cold execution, a range per zygote): 4096 blocks, enough for 4096 zygotes at
/// once on one host (a process runs one per eight cores).
const SLOTS: usize = 1 << 20;
/// Ids per block: a process claims ids host-wide a block at a time (a zygote's range fits one).
const BLOCK: usize = 256;
/// Host ids a zygote holds for its executions (beside its own): more concurrent executions than this on
/// one zygote share the zygote's id. A zygote serves about eight cores' worth of executions.
pub const ZYGOTE_EXECUTION_IDS: u32 = 128;
/// The unprivileged id executions share when every block of the host is taken: just past the space.
pub const SHARED_WHEN_FULL: u32 = SLOT_ID_BASE + SLOTS as u32;
/// Where the block locks live (as root only), unless `VERL_EXT_HOST_ID_DIR` names another directory.
const DEFAULT_LOCK_DIR: &str = "/run/verl-ext/host-ids";

/// This process's blocks and which of their ids are in use.
struct Table {
    /// The process the table belongs to: a forked child inherits the table and the parent's lock descriptors,
    /// but not the blocks (the parent hands out their ids), so it starts over.
    pid: i32,
    /// Per block: the lock that makes it this process's, and its ids in use.
    held: Vec<Option<(OwnedFd, Vec<bool>)>>,
}

static TABLE: Mutex<Table> = Mutex::new(Table { pid: 0, held: Vec::new() });

/// The directory of the block locks, created (mode 0700) on first use; `None` where it cannot be (then the ids
/// are only this process's to hand out, as before the host-wide space).
pub fn lock_dir() -> Option<&'static PathBuf> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::var_os("VERL_EXT_HOST_ID_DIR").map_or_else(|| PathBuf::from(DEFAULT_LOCK_DIR), PathBuf::from);
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        let _ = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir);
        // Only a directory of ours that nobody else can write: another user must not hold or fake our locks.
        let meta = std::fs::symlink_metadata(&dir).ok()?;
        (meta.is_dir() && meta.uid() == geteuid().as_raw() && meta.mode() & 0o022 == 0).then_some(dir)
    })
    .as_ref()
}

/// A POSIX write lock on the whole file, without waiting. Unlike `flock`, it belongs to this process: a forked
/// child does not hold it, and it ends with the process.
fn lock_whole_file(fd: &OwnedFd) -> bool {
    // SAFETY: an all-zero flock is a valid value of the plain C struct; its fields are set below.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl(F_SETLK) on a descriptor we own, with a pointer to a live flock.
    unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETLK, &lock) == 0 }
}

impl Table {
    /// Make the table this process's: after a fork, forget the parent's blocks (closing the inherited
    /// descriptors leaves the parent's locks in place: they belong to its open file descriptions).
    fn adopt(&mut self) {
        let pid = rustix::process::getpid().as_raw_nonzero().get();
        if self.pid != pid {
            self.held.clear();
            self.pid = pid;
        }
        if self.held.is_empty() {
            self.held.resize_with(SLOTS / BLOCK, || None);
        }
    }

    /// Claim block `b` host-wide: its lock file, locked without waiting.
    fn claim(&mut self, b: usize) -> bool {
        let fd = match lock_dir() {
            Some(dir) => {
                let path = dir.join(format!("block-{b}"));
                let flags = OFlags::RDWR | OFlags::CREATE | OFlags::CLOEXEC | OFlags::NOFOLLOW;
                match open(&path, flags, Mode::RUSR | Mode::WUSR) {
                    Ok(fd) if lock_whole_file(&fd) => fd,
                    _ => return false,
                }
            }
            // No shared place: this process's table alone (a descriptor stands in for the lock).
            None => match open("/", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
                Ok(fd) => fd,
                Err(_) => return false,
            },
        };
        self.held[b] = Some((fd, vec![false; BLOCK]));
        true
    }

    /// `count` free consecutive ids (as a global slot number), claiming a new block when the held ones have
    /// no room.
    fn take(&mut self, count: usize) -> Option<usize> {
        self.adopt();
        let run = |used: &Vec<bool>| used.windows(count).position(|w| w.iter().all(|u| !u));
        let found =
            self.held.iter().enumerate().find_map(|(b, h)| h.as_ref().and_then(|(_, u)| run(u)).map(|i| (b, i)));
        let (b, i) = match found {
            Some(at) => at,
            None => ((0..SLOTS / BLOCK).find(|&b| self.held[b].is_none() && self.claim(b))?, 0),
        };
        let (_, used) = self.held[b].as_mut()?;
        used[i..i + count].iter_mut().for_each(|u| *u = true);
        Some(b * BLOCK + i)
    }

    /// Free `count` ids from slot `first`; a block with none in use is given back host-wide.
    fn release(&mut self, first: usize, count: usize) {
        if self.pid != rustix::process::getpid().as_raw_nonzero().get() {
            return; // the parent's ids, inherited by a fork: not ours to free
        }
        let (b, i) = (first / BLOCK, first % BLOCK);
        let Some(Some((_, used))) = self.held.get_mut(b) else { return };
        used[i..(i + count).min(BLOCK)].iter_mut().for_each(|u| *u = false);
        if used.iter().all(|u| !u) {
            self.held[b] = None; // closing the descriptor drops the lock
        }
    }
}

/// Host uids/gids for one execution or zygote (`count` consecutive ids from `uid`/`gid`), released when
/// dropped (after its processes are reaped).
///
/// As root, every execution runs as its own unprivileged host uid, so the kernel's per-user counts
/// (RLIMIT_NPROC, descriptors in flight, pipe buffers) bound each sandbox separately and host files owned
/// by real users stay out of reach. An unprivileged caller can only map its own ids; then all executions
/// share them (see [`crate::limits::nproc_limit`]).
pub struct HostIds {
    pub uid: u32,
    pub gid: u32,
    pub count: u32,
    slots: Option<(usize, usize)>,
}

impl HostIds {
    /// One id (a cold execution).
    pub fn acquire() -> Self {
        Self::acquire_range(1)
    }

    /// `count` consecutive ids as root (a zygote: its own, then its executions'), taken from the host-wide
    /// space; the caller's single id when not root. When every block of the host is taken, the executions
    /// share the space's last id ([`SHARED_WHEN_FULL`]): never the caller's own, which as root would be root.
    pub fn acquire_range(count: usize) -> Self {
        let (uid, gid) = (geteuid().as_raw(), getegid().as_raw());
        if uid != 0 {
            return Self { uid, gid, count: 1, slots: None };
        }
        let count = count.clamp(1, BLOCK);
        let taken = TABLE.lock().unwrap_or_else(|p| p.into_inner()).take(count);
        Self::from_slots(taken, count)
    }

    /// The ids of `count` slots from `first`, or (none free on the host) the shared unprivileged id.
    fn from_slots(first: Option<usize>, count: usize) -> Self {
        match first {
            Some(first) => {
                let id = SLOT_ID_BASE + first as u32;
                Self { uid: id, gid: id, count: count as u32, slots: Some((first, count)) }
            }
            None => Self { uid: SHARED_WHEN_FULL, gid: SHARED_WHEN_FULL, count: 1, slots: None },
        }
    }

    /// Whether these are the caller's own ids, shared by all its executions.
    pub fn shared(&self) -> bool {
        self.slots.is_none()
    }
}

impl Drop for HostIds {
    fn drop(&mut self) {
        if let Some((first, count)) = self.slots {
            TABLE.lock().unwrap_or_else(|p| p.into_inner()).release(first, count);
        }
    }
}

/// Map `inner` and the ids after it (the ids the child may take on inside its user namespace) to `ids`
/// for the child `pid`.
pub fn write_id_maps(pid: libc::pid_t, ids: &HostIds, inner: libc::uid_t) -> Result<(), SandboxError> {
    // As root we may keep setgroups allowed, so the child can drop host root's supplementary groups.
    if !geteuid().is_root() {
        write_proc(pid, "setgroups", "deny")?;
    }
    write_proc(pid, "uid_map", &format!("{inner} {} {}\n", ids.uid, ids.count))?;
    write_proc(pid, "gid_map", &format!("{inner} {} {}\n", ids.gid, ids.count))
}

fn write_proc(pid: libc::pid_t, file: &str, text: &str) -> Result<(), SandboxError> {
    std::fs::write(format!("/proc/{pid}/{file}"), text)
        .map_err(|e| SandboxError::Setup(format!("writing /proc/<child>/{file}: {e}")))
}

/// The ids (inside the zygote's user namespace) a zygote's executions take on: the rest of its range, one
/// per live execution, handed out in turn and free again once the execution is reaped.
pub struct ExecutionIds {
    first: u32,
    used: Vec<bool>,
    next: usize,
}

impl ExecutionIds {
    /// `count` ids from `first`; `None` if there are none.
    pub fn new(first: u32, count: u32) -> Option<Self> {
        (count > 0).then(|| Self { first, used: vec![false; count as usize], next: 0 })
    }

    /// The ids after `own` in a `uid_map` (`inside outside count` lines) that names `own`; `None` if
    /// `own` is its only id.
    pub fn after(own: u32, uid_map: &str) -> Option<Self> {
        let count = uid_map.lines().find_map(|line| {
            let mut f = line.split_whitespace().map(|x| x.parse::<u32>().ok());
            match (f.next()??, f.next()??, f.next()??) {
                (inside, _, count) if inside == own => Some(count),
                _ => None,
            }
        })?;
        Self::new(own.checked_add(1)?, count.saturating_sub(1))
    }

    /// A free id, or (all taken) `None`: then the execution shares the zygote's.
    pub fn take(&mut self) -> Option<u32> {
        let n = self.used.len();
        let i = (0..n).map(|k| (self.next + k) % n).find(|&i| !self.used[i])?;
        self.used[i] = true;
        self.next = (i + 1) % n;
        Some(self.first + i as u32)
    }

    pub fn release(&mut self, id: u32) {
        if let Some(u) = id.checked_sub(self.first).and_then(|i| self.used.get_mut(i as usize)) {
            *u = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_ids_are_handed_out_in_turn() {
        let mut ids = ExecutionIds::after(1000, "      1000  1610612736        4\n").unwrap();
        let a = ids.take().unwrap();
        assert_eq!(a, 1001);
        ids.release(a);
        // A freed id comes back only after the others have had their turn.
        assert_eq!((ids.take(), ids.take(), ids.take()), (Some(1002), Some(1003), Some(1001)));
        assert_eq!(ids.take(), None);
        ids.release(1003);
        ids.release(7); // not ours: ignored
        assert_eq!((ids.take(), ids.take()), (Some(1003), None));
    }

    /// Run as a child by [`ids_are_one_space_across_processes`]: take a range, say which, hold it until stdin
    /// closes.
    #[test]
    fn ids_child_helper() {
        let Some(count) = std::env::var("VERL_EXT_IDS_CHILD").ok().and_then(|c| c.parse::<usize>().ok()) else {
            return;
        };
        let ids = HostIds::acquire_range(count);
        // On a line of its own: the harness writes the test's name before it without a line break.
        println!("\nIDS {} {}", ids.uid, ids.count);
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
        drop(ids);
    }

    /// Processes of one host never share an id: three other processes each take a range (a zygote's, then a
    /// cold execution's single id) while this one holds its own, and all are disjoint.
    #[test]
    fn ids_are_one_space_across_processes() {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        if !geteuid().is_root() || lock_dir().is_none() {
            eprintln!("skipped: host ids are handed out only as root, with a lock directory");
            return;
        }
        for count in [129usize, 1] {
            let mine = HostIds::acquire_range(count);
            let mut children = Vec::new();
            let mut ranges = vec![(mine.uid, mine.count)];
            for _ in 0..3 {
                let mut child = Command::new(std::env::current_exe().expect("test binary"))
                    .args(["--exact", "ids::tests::ids_child_helper", "--nocapture", "--test-threads=1"])
                    .env("VERL_EXT_IDS_CHILD", count.to_string())
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("spawn");
                let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
                // (A child that printed none has exited: its stdout closed, so the search ends.)
                let mut line = String::new();
                while out.read_line(&mut line).expect("read") > 0 && !line.starts_with("IDS ") {
                    line.clear();
                }
                let mut f = line.split_whitespace().skip(1).map(|x| x.parse::<u32>().expect("number"));
                ranges.push((f.next().expect("uid"), f.next().expect("count")));
                children.push((child, out));
            }
            for (k, &(a, n)) in ranges.iter().enumerate() {
                assert_eq!(n as usize, count, "{ranges:?}");
                for &(b, m) in &ranges[k + 1..] {
                    assert!(a + n <= b || b + m <= a, "overlapping host ids across processes: {ranges:?}");
                }
            }
            for (mut child, mut out) in children {
                drop(child.stdin.take());
                // Read the rest, so that the child's harness can finish writing its report.
                let _ = std::io::Read::read_to_end(&mut out, &mut Vec::new());
                assert!(child.wait().expect("wait").success());
            }
        }
    }

    /// A host with every block taken shares one unprivileged id: never root (red team: executions ran as host
    /// uid 0, where RLIMIT_NPROC does not apply).
    #[test]
    fn a_full_host_shares_an_unprivileged_id() {
        let ids = HostIds::from_slots(None, 129);
        assert!(ids.shared() && ids.uid != 0 && ids.gid != 0 && ids.count == 1);
        assert!(ids.uid >= SLOT_ID_BASE);
    }

    /// A forked child does not hand out ids from blocks its parent holds: it starts a table of its own.
    #[test]
    fn a_forked_table_is_not_reused() {
        // A table as a fork inherits it: another pid's, holding block 0 with an id in use.
        let fd = open("/", OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()).expect("open");
        let mut used = vec![false; BLOCK];
        used[0] = true;
        let mut table = Table { pid: 1, held: vec![Some((fd, used))] };
        table.release(0, 1); // not this process's to free
        assert!(table.held[0].is_some());
        table.adopt();
        assert_eq!(table.pid, rustix::process::getpid().as_raw_nonzero().get());
        assert_eq!(table.held.len(), SLOTS / BLOCK);
        assert!(table.held.iter().all(Option::is_none));
    }

    #[test]
    fn a_single_id_has_no_execution_ids() {
        assert!(ExecutionIds::after(1000, "1000 1000 1\n").is_none());
        assert!(ExecutionIds::after(1000, "0 0 4294967295\n").is_none());
        assert!(ExecutionIds::after(1000, "garbage\n").is_none());
    }
}
