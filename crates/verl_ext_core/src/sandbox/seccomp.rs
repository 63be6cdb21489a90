//! The seccomp filters every sandboxed process runs under.
//!
//! Two stacked filters: `clone3` fails with ENOSYS (its flags live in memory a filter cannot read, and
//! libc falls back to `clone` on ENOSYS), then a list of syscalls that fail with EPERM: kernel attack
//! surface and escape hatches no test program needs (tracing, mounts, namespaces, BPF, keyrings,
//! io_uring, perf, module loading, reboot, …), and `clone`/`unshare` with namespace flags.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use crate::sandbox::SandboxError;

/// Syscalls that fail with EPERM inside the sandbox, unconditionally.
const DENIED: &[(&str, libc::c_long)] = &[
    ("ptrace", libc::SYS_ptrace),
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
];

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

/// The two BPF programs, in the order they must be installed.
pub fn filters() -> Result<[BpfProgram; 2], SandboxError> {
    let clone3 = build(BTreeMap::from([(libc::SYS_clone3, vec![])]), libc::ENOSYS)?;

    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = DENIED.iter().map(|&(_, nr)| (nr, vec![])).collect();
    let any_namespace = |arg: u8| -> Result<Vec<SeccompRule>, SandboxError> {
        // One rule per flag: a rule matches when (arg & flag) == flag; rules of a syscall are OR-ed.
        (0..64)
            .map(|bit| 1u64 << bit)
            .filter(|flag| NAMESPACE_FLAGS & flag != 0)
            .map(|flag| {
                SeccompCondition::new(arg, SeccompCmpArgLen::Qword, SeccompCmpOp::MaskedEq(flag), flag)
                    .and_then(|c| SeccompRule::new(vec![c]))
                    .map_err(|e| SandboxError::Setup(format!("seccomp rule: {e}")))
            })
            .collect()
    };
    rules.insert(libc::SYS_clone, any_namespace(0)?);
    rules.insert(libc::SYS_unshare, any_namespace(0)?);
    let deny = build(rules, libc::EPERM)?;
    Ok([clone3, deny])
}

/// Syscalls a zygote's children need during their set-up (their own filters deny them afterwards).
const ZYGOTE_NEEDS: &[libc::c_long] = &[libc::SYS_mount, libc::SYS_sethostname];

/// The zygote's filter: the deny list except what its children need to set themselves up (mounting
/// their tmpfs and /proc, naming their host); namespace creation stays allowed. Executions stack
/// [`filters`] on top of it.
pub fn zygote_filter() -> Result<BpfProgram, SandboxError> {
    let rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().filter(|(_, nr)| !ZYGOTE_NEEDS.contains(nr)).map(|&(_, nr)| (nr, vec![])).collect();
    build(rules, libc::EPERM)
}

/// Names of the syscalls denied outright (for `doctor` and the docs).
pub fn denied_syscalls() -> impl Iterator<Item = &'static str> {
    DENIED.iter().map(|&(name, _)| name).chain(["clone3 (ENOSYS)", "clone/unshare with namespace flags"])
}

#[cfg(test)]
mod tests {
    #[test]
    fn filters_compile() {
        let [a, b] = super::filters().unwrap();
        assert!(!a.is_empty() && !b.is_empty());
        assert!(!super::zygote_filter().unwrap().is_empty());
    }
}
