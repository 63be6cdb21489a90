//! The seccomp filters every sandboxed process runs under.
//!
//! Four stacked filters: `clone3` fails with ENOSYS (its flags live in memory a filter cannot read, and
//! libc falls back to `clone` on ENOSYS); `socket`/`socketpair` outside the local and IP families fail
//! with EAFNOSUPPORT; UNIX sockets other than connected stream pairs fail with EACCES; then an allow-list (`ALLOWED`: what an interpreter and ordinary programs use —
//! files, memory, signals, time, threads, pipes and sockets, processes) with `clone` allowed only without
//! namespace flags and `fcntl` without lock commands; every other syscall fails with EPERM. That includes
//! kernel attack surface and escape hatches no test program needs (`DENIED` names the notable ones:
//! tracing, mounts, namespaces, BPF, keyrings, io_uring, perf, module loading, reboot, …) and what would
//! let an execution take more than its limits or reach another execution (memfd, new sessions, locks
//! and inotify instances, syncing, evicting or probing the page cache of shared files).
//!
//! A zygote, which must create namespaces and mount for its children, runs under the deny-list alone
//! ([`zygote_filter`]); its children stack the two filters above on it.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use crate::SandboxError;

/// Syscalls a sandboxed program may make (`clone` only without namespace flags; `clone3` is allowed
/// here so that the first filter's ENOSYS, not EPERM, is what the program sees).
const ALLOWED: &[(&str, libc::c_long)] = &[
    ("read", libc::SYS_read),
    ("write", libc::SYS_write),
    ("close", libc::SYS_close),
    ("fstat", libc::SYS_fstat),
    ("lseek", libc::SYS_lseek),
    ("mmap", libc::SYS_mmap),
    ("mprotect", libc::SYS_mprotect),
    ("munmap", libc::SYS_munmap),
    ("brk", libc::SYS_brk),
    ("rt_sigaction", libc::SYS_rt_sigaction),
    ("rt_sigprocmask", libc::SYS_rt_sigprocmask),
    ("rt_sigreturn", libc::SYS_rt_sigreturn),
    ("ioctl", libc::SYS_ioctl),
    ("pread64", libc::SYS_pread64),
    ("pwrite64", libc::SYS_pwrite64),
    ("readv", libc::SYS_readv),
    ("writev", libc::SYS_writev),
    ("sched_yield", libc::SYS_sched_yield),
    ("mremap", libc::SYS_mremap),
    ("msync", libc::SYS_msync),
    ("madvise", libc::SYS_madvise),
    ("dup", libc::SYS_dup),
    ("dup3", libc::SYS_dup3),
    ("nanosleep", libc::SYS_nanosleep),
    ("getitimer", libc::SYS_getitimer),
    ("setitimer", libc::SYS_setitimer),
    ("getpid", libc::SYS_getpid),
    ("sendfile", libc::SYS_sendfile),
    ("socket", libc::SYS_socket),
    ("connect", libc::SYS_connect),
    ("accept", libc::SYS_accept),
    ("accept4", libc::SYS_accept4),
    ("sendto", libc::SYS_sendto),
    ("recvfrom", libc::SYS_recvfrom),
    ("sendmsg", libc::SYS_sendmsg),
    ("recvmsg", libc::SYS_recvmsg),
    ("sendmmsg", libc::SYS_sendmmsg),
    ("recvmmsg", libc::SYS_recvmmsg),
    ("shutdown", libc::SYS_shutdown),
    ("bind", libc::SYS_bind),
    ("listen", libc::SYS_listen),
    ("getsockname", libc::SYS_getsockname),
    ("getpeername", libc::SYS_getpeername),
    ("socketpair", libc::SYS_socketpair),
    ("setsockopt", libc::SYS_setsockopt),
    ("getsockopt", libc::SYS_getsockopt),
    ("clone", libc::SYS_clone),
    ("execve", libc::SYS_execve),
    ("execveat", libc::SYS_execveat),
    ("exit", libc::SYS_exit),
    ("exit_group", libc::SYS_exit_group),
    ("wait4", libc::SYS_wait4),
    ("waitid", libc::SYS_waitid),
    ("kill", libc::SYS_kill),
    ("tkill", libc::SYS_tkill),
    ("tgkill", libc::SYS_tgkill),
    ("uname", libc::SYS_uname),
    ("fsync", libc::SYS_fsync),
    ("fdatasync", libc::SYS_fdatasync),
    ("truncate", libc::SYS_truncate),
    ("ftruncate", libc::SYS_ftruncate),
    ("getdents64", libc::SYS_getdents64),
    ("getcwd", libc::SYS_getcwd),
    ("chdir", libc::SYS_chdir),
    ("fchdir", libc::SYS_fchdir),
    ("renameat", libc::SYS_renameat),
    ("renameat2", libc::SYS_renameat2),
    ("mkdirat", libc::SYS_mkdirat),
    ("unlinkat", libc::SYS_unlinkat),
    ("linkat", libc::SYS_linkat),
    ("symlinkat", libc::SYS_symlinkat),
    ("readlinkat", libc::SYS_readlinkat),
    ("fchmod", libc::SYS_fchmod),
    ("fchmodat", libc::SYS_fchmodat),
    ("fchown", libc::SYS_fchown),
    ("fchownat", libc::SYS_fchownat),
    ("umask", libc::SYS_umask),
    ("gettimeofday", libc::SYS_gettimeofday),
    ("getrlimit", libc::SYS_getrlimit),
    ("prlimit64", libc::SYS_prlimit64),
    ("getrusage", libc::SYS_getrusage),
    ("times", libc::SYS_times),
    ("getuid", libc::SYS_getuid),
    ("getgid", libc::SYS_getgid),
    ("geteuid", libc::SYS_geteuid),
    ("getegid", libc::SYS_getegid),
    ("setpgid", libc::SYS_setpgid),
    ("getppid", libc::SYS_getppid),
    ("getgroups", libc::SYS_getgroups),
    ("getresuid", libc::SYS_getresuid),
    ("getresgid", libc::SYS_getresgid),
    ("getpgid", libc::SYS_getpgid),
    ("getsid", libc::SYS_getsid),
    ("capget", libc::SYS_capget),
    ("rt_sigpending", libc::SYS_rt_sigpending),
    ("rt_sigtimedwait", libc::SYS_rt_sigtimedwait),
    ("rt_sigqueueinfo", libc::SYS_rt_sigqueueinfo),
    ("rt_tgsigqueueinfo", libc::SYS_rt_tgsigqueueinfo),
    ("rt_sigsuspend", libc::SYS_rt_sigsuspend),
    ("sigaltstack", libc::SYS_sigaltstack),
    ("statfs", libc::SYS_statfs),
    ("fstatfs", libc::SYS_fstatfs),
    ("getpriority", libc::SYS_getpriority),
    ("setpriority", libc::SYS_setpriority),
    ("sched_setparam", libc::SYS_sched_setparam),
    ("sched_getparam", libc::SYS_sched_getparam),
    ("sched_setscheduler", libc::SYS_sched_setscheduler),
    ("sched_getscheduler", libc::SYS_sched_getscheduler),
    ("sched_get_priority_max", libc::SYS_sched_get_priority_max),
    ("sched_get_priority_min", libc::SYS_sched_get_priority_min),
    ("sched_rr_get_interval", libc::SYS_sched_rr_get_interval),
    ("sched_setaffinity", libc::SYS_sched_setaffinity),
    ("sched_getaffinity", libc::SYS_sched_getaffinity),
    ("sched_getattr", libc::SYS_sched_getattr),
    ("sched_setattr", libc::SYS_sched_setattr),
    ("prctl", libc::SYS_prctl),
    ("gettid", libc::SYS_gettid),
    ("futex", libc::SYS_futex),
    ("set_tid_address", libc::SYS_set_tid_address),
    ("set_robust_list", libc::SYS_set_robust_list),
    ("get_robust_list", libc::SYS_get_robust_list),
    ("timer_create", libc::SYS_timer_create),
    ("timer_settime", libc::SYS_timer_settime),
    ("timer_gettime", libc::SYS_timer_gettime),
    ("timer_getoverrun", libc::SYS_timer_getoverrun),
    ("timer_delete", libc::SYS_timer_delete),
    ("clock_gettime", libc::SYS_clock_gettime),
    ("clock_getres", libc::SYS_clock_getres),
    ("clock_nanosleep", libc::SYS_clock_nanosleep),
    ("epoll_ctl", libc::SYS_epoll_ctl),
    ("epoll_pwait", libc::SYS_epoll_pwait),
    ("epoll_pwait2", libc::SYS_epoll_pwait2),
    ("epoll_create1", libc::SYS_epoll_create1),
    ("openat", libc::SYS_openat),
    ("openat2", libc::SYS_openat2),
    ("newfstatat", libc::SYS_newfstatat),
    ("statx", libc::SYS_statx),
    ("faccessat", libc::SYS_faccessat),
    ("faccessat2", libc::SYS_faccessat2),
    ("pselect6", libc::SYS_pselect6),
    ("ppoll", libc::SYS_ppoll),
    ("splice", libc::SYS_splice),
    ("tee", libc::SYS_tee),
    ("vmsplice", libc::SYS_vmsplice),
    ("utimensat", libc::SYS_utimensat),
    ("timerfd_create", libc::SYS_timerfd_create),
    ("timerfd_settime", libc::SYS_timerfd_settime),
    ("timerfd_gettime", libc::SYS_timerfd_gettime),
    ("signalfd4", libc::SYS_signalfd4),
    ("eventfd2", libc::SYS_eventfd2),
    ("fallocate", libc::SYS_fallocate),
    ("pipe2", libc::SYS_pipe2),
    ("preadv", libc::SYS_preadv),
    ("pwritev", libc::SYS_pwritev),
    ("preadv2", libc::SYS_preadv2),
    ("pwritev2", libc::SYS_pwritev2),
    ("getcpu", libc::SYS_getcpu),
    ("getrandom", libc::SYS_getrandom),
    ("copy_file_range", libc::SYS_copy_file_range),
    ("rseq", libc::SYS_rseq),
    ("membarrier", libc::SYS_membarrier),
    ("close_range", libc::SYS_close_range),
    ("pidfd_open", libc::SYS_pidfd_open),
    ("pidfd_send_signal", libc::SYS_pidfd_send_signal),
    ("mknodat", libc::SYS_mknodat),
    ("getxattr", libc::SYS_getxattr),
    ("lgetxattr", libc::SYS_lgetxattr),
    ("fgetxattr", libc::SYS_fgetxattr),
    ("listxattr", libc::SYS_listxattr),
    ("llistxattr", libc::SYS_llistxattr),
    ("flistxattr", libc::SYS_flistxattr),
    ("restart_syscall", libc::SYS_restart_syscall),
    ("clone3", libc::SYS_clone3),
];

/// Legacy syscalls of x86-64 (aarch64 has only their `*at` successors, listed above).
#[cfg(target_arch = "x86_64")]
const ALLOWED_ARCH: &[(&str, libc::c_long)] = &[
    ("open", libc::SYS_open),
    ("stat", libc::SYS_stat),
    ("lstat", libc::SYS_lstat),
    ("access", libc::SYS_access),
    ("pipe", libc::SYS_pipe),
    ("select", libc::SYS_select),
    ("dup2", libc::SYS_dup2),
    ("pause", libc::SYS_pause),
    ("alarm", libc::SYS_alarm),
    ("fork", libc::SYS_fork),
    ("vfork", libc::SYS_vfork),
    ("getdents", libc::SYS_getdents),
    ("rename", libc::SYS_rename),
    ("mkdir", libc::SYS_mkdir),
    ("rmdir", libc::SYS_rmdir),
    ("creat", libc::SYS_creat),
    ("link", libc::SYS_link),
    ("unlink", libc::SYS_unlink),
    ("symlink", libc::SYS_symlink),
    ("readlink", libc::SYS_readlink),
    ("chmod", libc::SYS_chmod),
    ("chown", libc::SYS_chown),
    ("lchown", libc::SYS_lchown),
    ("getpgrp", libc::SYS_getpgrp),
    ("utime", libc::SYS_utime),
    ("utimes", libc::SYS_utimes),
    ("futimesat", libc::SYS_futimesat),
    ("time", libc::SYS_time),
    ("arch_prctl", libc::SYS_arch_prctl),
    ("epoll_create", libc::SYS_epoll_create),
    ("epoll_wait", libc::SYS_epoll_wait),
    ("signalfd", libc::SYS_signalfd),
    ("eventfd", libc::SYS_eventfd),
    ("mknod", libc::SYS_mknod),
    ("poll", libc::SYS_poll),
];
#[cfg(not(target_arch = "x86_64"))]
const ALLOWED_ARCH: &[(&str, libc::c_long)] = &[];

/// `memfd_secret` (not in the libc crate for every target; the same number on x86-64 and aarch64).
const SYS_MEMFD_SECRET: libc::c_long = 447;

/// Syscalls that fail with EPERM inside the sandbox, unconditionally.
const DENIED: &[(&str, libc::c_long)] = &[
    ("ptrace", libc::SYS_ptrace),
    // Host-wide free memory, load and process count: they follow what neighbours do (a channel).
    ("sysinfo", libc::SYS_sysinfo),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("kcmp", libc::SYS_kcmp),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("move_mount", libc::SYS_move_mount),
    ("open_tree", libc::SYS_open_tree),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("setns", libc::SYS_setns),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("syslog", libc::SYS_syslog),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("clock_adjtime", libc::SYS_clock_adjtime),
    ("adjtimex", libc::SYS_adjtimex),
    ("sethostname", libc::SYS_sethostname),
    ("setdomainname", libc::SYS_setdomainname),
    ("personality", libc::SYS_personality),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("lookup_dcookie", libc::SYS_lookup_dcookie),
    ("fanotify_init", libc::SYS_fanotify_init),
    ("vhangup", libc::SYS_vhangup),
    ("iopl", libc::SYS_iopl),
    ("ioperm", libc::SYS_ioperm),
    ("mbind", libc::SYS_mbind),
    ("migrate_pages", libc::SYS_migrate_pages),
    ("move_pages", libc::SYS_move_pages),
    ("set_mempolicy", libc::SYS_set_mempolicy),
    // Memory no limit is charged for: memfd pages count towards neither RLIMIT_AS (unless mapped) nor the
    // capped /tmp, and a program could hold 256 fds x 32 processes of them. Denied rather than charged:
    // charging needs a memory cgroup, which not every host delegates, while the capped /tmp tmpfs already
    // is the charged place for file-backed memory (`open('/tmp/x')` + mmap does what memfd would).
    ("memfd_create", libc::SYS_memfd_create),
    ("memfd_secret", SYS_MEMFD_SECRET),
    // Shared state between concurrent executions: a lock on a shared read-only file is a covert channel
    // (fcntl's lock commands are refused by the allow-list's rule for `fcntl`), and an inotify instance
    // counts against a per-user quota that all executions of a zygote share.
    ("flock", libc::SYS_flock),
    ("inotify_init1", libc::SYS_inotify_init1),
    ("inotify_add_watch", libc::SYS_inotify_add_watch),
    // Work on the host's file systems and page cache through shared files: flushing every file system,
    // or evicting the interpreter's pages that every execution reads.
    ("sync", libc::SYS_sync),
    ("syncfs", libc::SYS_syncfs),
    ("sync_file_range", libc::SYS_sync_file_range),
    ("fadvise64", libc::SYS_fadvise64),
    // Page-cache residency of shared files is a covert channel between concurrent executions: `mincore`
    // shows which pages of a shared read-only file are cached (another execution read them), `readahead`
    // loads pages without reading them. Neither is needed by an interpreter (`read`/`mmap` still work).
    ("mincore", libc::SYS_mincore),
    ("readahead", libc::SYS_readahead),
    // A channel between executions: futex_waitv waits on several futexes, shared ones included (the
    // allow-list's rule for `futex` keeps shared wake-ups out; this has no such rule). glibc does not use it.
    ("futex_waitv", libc::SYS_futex_waitv),
    // A new session is a new autogroup, i.e. a fresh CPU share per process: the set-up starts every
    // execution in its own session, and its processes stay there (see `crate::cpu_share`).
    ("setsid", libc::SYS_setsid),
];

/// `fcntl` commands refused (the allow-list's rule for `fcntl`): record and open-file-description locks,
/// which, like `flock`, one execution could hold on a shared file for another to observe; leases and
/// directory notifications on shared files likewise.
const FCNTL_REFUSED: &[u64] = &[
    libc::F_GETLK as u64,
    libc::F_SETLK as u64,
    libc::F_SETLKW as u64,
    libc::F_OFD_GETLK as u64,
    libc::F_OFD_SETLK as u64,
    libc::F_OFD_SETLKW as u64,
    libc::F_SETLEASE as u64,
    libc::F_NOTIFY as u64,
    // Pipe buffers are kernel memory no rlimit counts: each pipe keeps its default size (64 KiB).
    libc::F_SETPIPE_SZ as u64,
];

/// The command bits of a futex operation (without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME).
const FUTEX_CMD_MASK: u64 = 0x7f;

/// Socket families a program may create: local and IP sockets. Others fail with EAFNOSUPPORT, as on a
/// kernel without them: AF_VSOCK reaches the host outside the network namespace, and netlink, packet,
/// crypto (AF_ALG), key and the rest are kernel attack surface no test program needs.
const SOCKET_FAMILIES: &[(&str, u64)] =
    &[("AF_UNIX", libc::AF_UNIX as u64), ("AF_INET", libc::AF_INET as u64), ("AF_INET6", libc::AF_INET6 as u64)];

/// Namespace flags a sandboxed process may not pass to `clone`/`unshare`.
const NAMESPACE_FLAGS: u64 = (libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWCGROUP) as u64;

fn arch() -> Result<TargetArch, SandboxError> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| SandboxError::Unsupported(format!("seccomp filters for {}", std::env::consts::ARCH)))
}

fn build(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, SandboxError> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
        .map_err(|e| SandboxError::Setup(format!("seccomp filter: {e}")))?;
    filter.try_into().map_err(|e| SandboxError::Setup(format!("seccomp filter: {e}")))
}

/// One rule: every `(argument, op, value)` holds (32-bit comparisons: the arguments are C ints).
fn rule(conditions: impl IntoIterator<Item = (u8, SeccompCmpOp, u64)>) -> Result<SeccompRule, SandboxError> {
    let conditions = conditions
        .into_iter()
        .map(|(arg, op, value)| SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| SandboxError::Setup(format!("seccomp rule: {e}")))?;
    SeccompRule::new(conditions).map_err(|e| SandboxError::Setup(format!("seccomp rule: {e}")))
}

fn build_allow_list() -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = ALLOWED
        .iter()
        .chain(ALLOWED_ARCH)
        .filter(|(_, nr)| *nr != libc::SYS_clone)
        .map(|&(_, nr)| (nr, vec![]))
        .collect();
    // clone: allowed when (flags & NAMESPACE_FLAGS) == 0.
    let no_namespace = SeccompCondition::new(0, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(NAMESPACE_FLAGS), 0)
        .and_then(|c| SeccompRule::new(vec![c]))
        .map_err(|e| SandboxError::Setup(format!("seccomp rule: {e}")))?;
    rules.insert(libc::SYS_clone, vec![no_namespace]);
    // mmap: allowed unless both shared and anonymous. Each such mapping is a kernel file and inode that no
    // rlimit counts (the memfd hole in another form: hundreds of thousands per execution); shared memory
    // between a program's processes goes through a file in the capped /tmp instead.
    let private_or_file = |bit: u64| {
        SeccompCondition::new(3, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(bit), 0)
            .and_then(|c| SeccompRule::new(vec![c]))
            .map_err(|e| SandboxError::Setup(format!("seccomp rule: {e}")))
    };
    rules.insert(
        libc::SYS_mmap,
        vec![private_or_file(libc::MAP_SHARED as u64)?, private_or_file(libc::MAP_ANONYMOUS as u64)?],
    );
    // setsockopt: socket buffers are kernel memory no rlimit counts, and `net.core.wmem_max` may let one
    // socket queue megabytes: the sizes stay the host's defaults.
    let sol_socket = libc::SOL_SOCKET as u64;
    let buffer_sizes = [libc::SO_SNDBUF, libc::SO_RCVBUF, libc::SO_SNDBUFFORCE, libc::SO_RCVBUFFORCE];
    rules.insert(
        libc::SYS_setsockopt,
        vec![
            rule([(1, SeccompCmpOp::Ne, sol_socket)])?,
            rule(buffer_sizes.iter().map(|&o| (2, SeccompCmpOp::Ne, o as u64)))?,
        ],
    );
    // futex: private operations (FUTEX_PRIVATE_FLAG: keyed by this process's memory) freely; shared ones only
    // to wait (glibc's pthread_join waits on a shared futex the kernel wakes), and those return at once
    // (`build_shared_futex_waits`). A shared wake, requeue or wake-op on a word of a file every execution
    // maps (the interpreter) would be a channel between executions: one wakes, another counts the wake-ups.
    let futex_cmd = |cmd: u64| rule([(1, SeccompCmpOp::MaskedEq(FUTEX_CMD_MASK), cmd)]);
    rules.insert(
        libc::SYS_futex,
        vec![
            rule([(1, SeccompCmpOp::MaskedEq(libc::FUTEX_PRIVATE_FLAG as u64), libc::FUTEX_PRIVATE_FLAG as u64)])?,
            futex_cmd(libc::FUTEX_WAIT as u64)?,
            futex_cmd(libc::FUTEX_WAIT_BITSET as u64)?,
        ],
    );
    // preadv2/pwritev2: without flags only. `RWF_NOWAIT` probes whether pages of a shared file are cached (a
    // channel, as `mincore` is); the other flags have no use in a test program.
    rules.insert(libc::SYS_preadv2, vec![rule([(5, SeccompCmpOp::Eq, 0)])?]);
    rules.insert(libc::SYS_pwritev2, vec![rule([(5, SeccompCmpOp::Eq, 0)])?]);
    // fcntl: allowed for every command but the refused ones.
    rules.insert(libc::SYS_fcntl, vec![rule(FCNTL_REFUSED.iter().map(|&cmd| (1, SeccompCmpOp::Ne, cmd)))?]);
    let filter = SeccompFilter::new(rules, SeccompAction::Errno(libc::EPERM as u32), SeccompAction::Allow, arch()?)
        .map_err(|e| SandboxError::Setup(format!("seccomp filter: {e}")))?;
    filter.try_into().map_err(|e| SandboxError::Setup(format!("seccomp filter: {e}")))
}

/// `socket`/`socketpair` of a family outside [`SOCKET_FAMILIES`] fail with EAFNOSUPPORT.
fn build_socket_families() -> Result<BpfProgram, SandboxError> {
    let other_family = || rule(SOCKET_FAMILIES.iter().map(|&(_, family)| (0, SeccompCmpOp::Ne, family)));
    let rules =
        BTreeMap::from([(libc::SYS_socket, vec![other_family()?]), (libc::SYS_socketpair, vec![other_family()?])]);
    build(rules, libc::EAFNOSUPPORT)
}

/// UNIX sockets that could reach a socket file outside the sandbox fail with EACCES: `socket(AF_UNIX, …)`
/// (its `connect`/`sendto` take a path, and a read-only bind mount or Landlock does not stop a connect to a
/// host socket under the interpreter's prefix or `/usr`) and datagram pairs (a datagram socket can still
/// `sendto` a path). Connected stream and seqpacket pairs, which asyncio and multiprocessing use, stay.
/// Abstract addresses belong to the network namespace, which is the sandbox's own.
fn build_unix_sockets() -> Result<BpfProgram, SandboxError> {
    let unix = (0, SeccompCmpOp::Eq, libc::AF_UNIX as u64);
    // The type's low bits (SOCK_NONBLOCK and SOCK_CLOEXEC are flags above them).
    let datagram = (1, SeccompCmpOp::MaskedEq(0xf), libc::SOCK_DGRAM as u64);
    let rules = BTreeMap::from([
        (libc::SYS_socket, vec![rule([unix.clone()])?]),
        (libc::SYS_socketpair, vec![rule([unix, datagram])?]),
    ]);
    build(rules, libc::EACCES)
}

/// Shared futex waits return EAGAIN at once ("the word changed"), which glibc's callers take as a spurious
/// wake-up and answer by checking their word again: `pthread_join` (whose word the kernel clears and wakes
/// when the thread exits) and process-shared semaphores still work, spinning instead of sleeping. No
/// program can sleep on a shared futex, so none can hear a wake-up: not another execution's (a word of a
/// file every execution maps, such as the interpreter, is one futex for all of them), nor the kernel's at a
/// thread's exit, which no filter sees (`set_tid_address`/`CLONE_CHILD_CLEARTID` may point anywhere).
fn build_shared_futex_waits() -> Result<BpfProgram, SandboxError> {
    let shared_wait = |cmd: u64| {
        rule([
            (1, SeccompCmpOp::MaskedEq(libc::FUTEX_PRIVATE_FLAG as u64), 0),
            (1, SeccompCmpOp::MaskedEq(FUTEX_CMD_MASK), cmd),
        ])
    };
    let waits = vec![shared_wait(libc::FUTEX_WAIT as u64)?, shared_wait(libc::FUTEX_WAIT_BITSET as u64)?];
    build(BTreeMap::from([(libc::SYS_futex, waits)]), libc::EAGAIN)
}

/// The BPF programs, in the order they must be installed.
pub fn filters() -> Result<[BpfProgram; 5], SandboxError> {
    let clone3 = build(BTreeMap::from([(libc::SYS_clone3, vec![])]), libc::ENOSYS)?;
    Ok([clone3, build_socket_families()?, build_unix_sockets()?, build_shared_futex_waits()?, build_allow_list()?])
}

/// Syscalls a zygote's children need during their set-up (their own filters deny them afterwards).
const ZYGOTE_NEEDS: &[libc::c_long] = &[libc::SYS_mount, libc::SYS_sethostname, libc::SYS_setsid];

/// The zygote's filter: the deny list except what its children need to set themselves up (mounting
/// their tmpfs and /proc, naming their host); namespace creation stays allowed. Executions stack
/// [`filters`] on top of it.
pub fn zygote_filter() -> Result<BpfProgram, SandboxError> {
    let rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().filter(|(_, nr)| !ZYGOTE_NEEDS.contains(nr)).map(|&(_, nr)| (nr, vec![])).collect();
    build(rules, libc::EPERM)
}

/// Notable syscalls a sandboxed program cannot make (for `doctor` and the docs): everything outside
/// the allow-list fails with EPERM, these included.
pub fn denied_syscalls() -> impl Iterator<Item = &'static str> {
    DENIED.iter().map(|&(name, _)| name).chain(["unshare", "clone with namespace flags", "clone3 (ENOSYS)"])
}

/// Names of the syscalls a sandboxed program may make.
pub fn allowed_syscalls() -> impl Iterator<Item = &'static str> {
    ALLOWED.iter().chain(ALLOWED_ARCH).map(|&(name, _)| name).chain([
        "fcntl (no locks, leases, notifications)",
        "futex (shared: wait only, returning EAGAIN at once)",
        "preadv2/pwritev2 (no flags)",
    ])
}

/// The socket families a sandboxed program may create.
pub fn socket_families() -> impl Iterator<Item = &'static str> {
    SOCKET_FAMILIES.iter().map(|&(name, _)| if name == "AF_UNIX" { "AF_UNIX (connected pairs only)" } else { name })
}

#[cfg(test)]
mod tests {
    #[test]
    fn filters_compile() {
        let filters = super::filters().unwrap();
        assert!(filters.iter().all(|f| !f.is_empty()));
        assert!(!super::zygote_filter().unwrap().is_empty());
    }

    #[test]
    fn allow_list_excludes_every_denied_syscall() {
        let allowed: Vec<i64> = super::ALLOWED.iter().chain(super::ALLOWED_ARCH).map(|&(_, nr)| nr).collect();
        for (name, nr) in super::DENIED {
            assert!(!allowed.contains(nr), "{name} is both allowed and denied");
        }
        assert!(!allowed.contains(&libc::SYS_unshare) && !allowed.contains(&libc::SYS_setns));
    }
}
