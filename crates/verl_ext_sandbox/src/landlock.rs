//! Landlock (where the kernel has it): on top of the read-only mounts, an execution may only read and
//! execute below `/`, write below `/tmp` and to the few device nodes; with ABI 4+ it may not bind or
//! connect TCP sockets, with ABI 6+ it may not signal processes or reach abstract UNIX sockets outside
//! its own domain. Each execution builds its ruleset after mounting its tmpfs: Landlock ignores rules
//! on a directory that something is mounted over, so a rule on the zygote's `/tmp` would not cover it.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const CREATE_RULESET_VERSION: libc::c_uint = 1;
const RULE_PATH_BENEATH: libc::c_int = 1;

const EXECUTE: u64 = 1 << 0;
const WRITE_FILE: u64 = 1 << 1;
const READ_FILE: u64 = 1 << 2;
const READ_DIR: u64 = 1 << 3;
const REMOVE_DIR: u64 = 1 << 4;
const REMOVE_FILE: u64 = 1 << 5;
const MAKE_CHAR: u64 = 1 << 6;
const MAKE_DIR: u64 = 1 << 7;
const MAKE_REG: u64 = 1 << 8;
const MAKE_SOCK: u64 = 1 << 9;
const MAKE_FIFO: u64 = 1 << 10;
const MAKE_BLOCK: u64 = 1 << 11;
const MAKE_SYM: u64 = 1 << 12;
const REFER: u64 = 1 << 13; // ABI 2
const TRUNCATE: u64 = 1 << 14; // ABI 3
const IOCTL_DEV: u64 = 1 << 15; // ABI 5
const NET_BIND_TCP: u64 = 1 << 0; // ABI 4
const NET_CONNECT_TCP: u64 = 1 << 1;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0; // ABI 6
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The kernel's Landlock ABI version, if Landlock is enabled.
pub fn abi() -> Option<u32> {
    // SAFETY: the version query takes no ruleset.
    let v =
        unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0, CREATE_RULESET_VERSION) };
    (v > 0).then_some(v as u32)
}

fn fs_rights(abi: u32) -> u64 {
    let mut all = EXECUTE
        | WRITE_FILE
        | READ_FILE
        | READ_DIR
        | REMOVE_DIR
        | REMOVE_FILE
        | MAKE_CHAR
        | MAKE_DIR
        | MAKE_REG
        | MAKE_SOCK
        | MAKE_FIFO
        | MAKE_BLOCK
        | MAKE_SYM;
    if abi >= 2 {
        all |= REFER;
    }
    if abi >= 3 {
        all |= TRUNCATE;
    }
    if abi >= 5 {
        all |= IOCTL_DEV;
    }
    all
}

/// Restrict the calling process (and its future children) to the rules above, for the current root.
/// Returns the ABI applied (0 where the kernel has no Landlock), or -1 with errno set when a step failed.
///
/// # Safety
/// Plain syscalls; the caller must hold CAP_SYS_ADMIN in its user namespace or have set no_new_privs.
pub unsafe fn restrict_self() -> libc::c_long {
    let Some(abi) = abi() else { return 0 };
    let Some(ruleset) = Ruleset::build(abi) else { return -1 };
    // SAFETY: a plain syscall on the ruleset descriptor we own.
    if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.fd.as_raw_fd(), 0) } < 0 {
        return -1;
    }
    libc::c_long::from(abi as i32)
}

struct Ruleset {
    fd: OwnedFd,
}

impl Ruleset {
    fn build(abi: u32) -> Option<Self> {
        let all = fs_rights(abi);
        let attr = RulesetAttr {
            handled_access_fs: all,
            handled_access_net: if abi >= 4 { NET_BIND_TCP | NET_CONNECT_TCP } else { 0 },
            scoped: if abi >= 6 { SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL } else { 0 },
        };
        let size = match abi {
            1..=3 => 8,
            4..=5 => 16,
            _ => std::mem::size_of::<RulesetAttr>(),
        };
        // SAFETY: valid attribute struct of at least `size` bytes.
        let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr as *const RulesetAttr, size, 0) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a fresh descriptor.
        let ruleset = Self { fd: unsafe { OwnedFd::from_raw_fd(fd as i32) } };
        let file_rights = EXECUTE | WRITE_FILE | READ_FILE | (all & (TRUNCATE | IOCTL_DEV));
        let rules: [(&CStr, u64); 6] = [
            (c"/", EXECUTE | READ_FILE | READ_DIR),
            (c"/tmp", all & !(MAKE_CHAR | MAKE_BLOCK)),
            (c"/dev/null", file_rights),
            (c"/dev/zero", file_rights),
            (c"/dev/urandom", file_rights),
            (c"/dev/random", file_rights),
        ];
        for (path, rights) in rules {
            // SAFETY: plain open of a constant path.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
            if fd < 0 {
                continue; // e.g. no /dev/random: nothing to allow there
            }
            // SAFETY: fresh descriptor.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            // fstat, not std::fs: this also runs between clone and exec, where nothing may allocate.
            // SAFETY: zeroed stat is a valid out-parameter for our descriptor.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: fstat of our own descriptor into a stat of the kernel's layout.
            let stat_ok = unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0;
            let is_dir = stat_ok && st.st_mode & libc::S_IFMT == libc::S_IFDIR;
            let rule = PathBeneathAttr {
                allowed_access: if is_dir { rights } else { rights & file_rights },
                parent_fd: fd.as_raw_fd(),
            };
            // SAFETY: valid rule struct and ruleset descriptor.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset.fd.as_raw_fd(),
                    RULE_PATH_BENEATH,
                    &rule as *const PathBeneathAttr,
                    0,
                )
            };
            if r < 0 {
                return None;
            }
        }
        Some(ruleset)
    }
}
