//! `clone3` into fresh namespaces, with a pidfd (cold starts from the trainer, warm ones from a zygote).

/// The namespaces every sandboxed process gets.
pub const NAMESPACES: u64 = (libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS) as u64;

#[repr(C)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

/// `clone3` like fork (no stack), into `namespaces`, storing a pidfd; returns 0 in the child.
///
/// # Safety
/// As for fork: in a multi-threaded process the child may only make async-signal-safe calls.
pub unsafe fn clone3(namespaces: u64, pidfd: &mut libc::c_int) -> libc::c_long {
    let args = CloneArgs {
        flags: namespaces | libc::CLONE_PIDFD as u64,
        pidfd: pidfd as *mut libc::c_int as u64,
        child_tid: 0,
        parent_tid: 0,
        exit_signal: libc::SIGCHLD as u64,
        stack: 0,
        stack_size: 0,
        tls: 0,
        set_tid: 0,
        set_tid_size: 0,
        cgroup: 0,
    };
    // SAFETY: `args` is a complete clone_args of the kernel's layout; the caller handles the child.
    unsafe { libc::syscall(libc::SYS_clone3, &args as *const CloneArgs, std::mem::size_of::<CloneArgs>()) }
}
