//! Process sandbox for untrusted code: fresh user, PID, mount, network, IPC and UTS namespaces, a
//! read-only view of the interpreter, a size-capped private tmpfs as the only writable place, no
//! network, rlimits, `no_new_privs` and seccomp filters; the parent enforces the wall-clock deadline
//! through a pidfd and caps all output. Killing PID 1 of the namespace ends every process in it, and
//! the private mounts vanish with it, so nothing is left behind.
//!
//! Each execution's process tree gets one CPU share ([`cpu_share`]); memory it could hold outside its
//! limits (memfd, shared anonymous mappings, grown pipes), sockets outside the local and IP families, UNIX
//! sockets that could reach a path on the host, and state shared between concurrent executions (file
//! locks, inotify instances, syncing or evicting shared files) are refused ([`seccomp`]); the scratch tmpfs
//! caps its inodes and the device nodes are bound read-only (`plan`).
//!
//! Memory: `memory_mb` is RLIMIT_AS, a limit on each process's address space, not on the execution.
//! Without a per-execution cgroup (the default) an execution's processes may together hold up to
//! `memory_mb` x `max_processes` (measured: 31 `posix.fork()` children touching 60 MB each held 2 GB with
//! `memory_mb=128`; the defaults allow 32 x 1 GiB per execution, times the executions running at once).
//! The opt-in per-execution cgroup (`VERL_EXT_SANDBOX_CGROUPS=1`, cold starts only, [`cgroup`]) caps
//! the sum at `memory_mb`. In both cases every sandboxed process, and everything it forks, has
//! `oom_score_adj` 1000 (set by the set-up step [`Step::RaiseOomScore`]; the execution's `/proc` is
//! read-only and Landlock allows writes only below `/tmp`, so the program cannot lower it): under host
//! memory pressure the kernel's OOM killer picks sandboxed processes before the trainer. `verl-ext
//! doctor` says which accounting is in force ([`probe::memory_accounting`]). Size the host for
//! `memory_mb` x `max_processes` x concurrent executions, or lower `max_processes`, where cgroups are off.
//!
//! Residual risk, by design: `/proc/self/mountinfo` inside shows, for each read-only bind, its path
//! within the host file system (the interpreter's prefix, and the directory of the verl-ext package
//! the harness is loaded from, e.g. `/work/main/verl_ext` mounted at `/opt/verl-ext/verl_ext`), the
//! host's block device, file-system type and options, the size of the host's devtmpfs (about half its
//! RAM) and the host uid of the execution's slot. The kernel prints a bind mount's source path and superblock as
//! they are; hiding them would mean copying the interpreter into a tmpfs per zygote. Names, not
//! contents: nothing outside the read-only binds can be opened.
//!
//! Residual risk, measured: socket buffers are kernel memory no rlimit charges. A process filling one
//! direction of 120 UNIX socket pairs (240 of its 256 descriptors) queued 26 MiB with `memory_mb=128`
//! (~210 KiB per full receive queue); both directions on every descriptor of all `max_processes`
//! processes bound this at about 210 KiB x `max_open_files` x `max_processes` per execution: ~0.4 GiB
//! with the defaults here (64 and 32), ~1.7 GiB at 256 descriptors. A memory cgroup that accounts socket
//! memory (cgroup v2) charges it; otherwise lower `max_open_files` and `max_processes` bound it.
//!
//! Layout: `types` (requests, results, errors), `ids` (host uid slots), `limits`
//! (rlimits and process-limit policy), `plan` (what a child's set-up needs, built before the clone),
//! `setup` (the child's one ordered list of named [`Step`]s, cold and warm alike), `clone` (`clone3`),
//! `cold` (cold starts), [`zygote`] + [`warm`] + `protocol` (warm starts), `io` (deadline and capped
//! pipes), `verdict`, `limiter` (executions at a time), [`weak`] (the opt-in rlimits-only mode).

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod cancel;
mod child;
mod clone;
mod cold;
mod ids;
mod io;
mod limiter;
mod limits;
mod plan;
mod protocol;
mod setup;
mod types;
mod verdict;

pub mod cgroup;
pub mod cpu_share;
pub mod landlock;
pub mod probe;
pub mod seccomp;
pub mod warm;
pub mod weak;
pub mod zygote;

pub use cancel::{cancel_running, close as close_batches, epoch as cancel_epoch};
pub use cold::run;
pub use io::Collected;
pub use limiter::{default_sandbox_threads, run_all, run_all_weak};
pub use setup::Step;
pub use types::{ExecRequest, ExecResult, SandboxConfig, SandboxError, Status, MEMORY_EXIT_CODE, MIN_OPEN_FILES};
