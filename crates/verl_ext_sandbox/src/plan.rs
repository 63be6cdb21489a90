//! Plan building: everything the child's set-up ([`crate::setup`]) needs, prepared before the clone.
//!
//! Cold and warm starts differ only here: a cold plan ([`cold`]) has the parent write the id maps, builds
//! a new root (a tmpfs with the read-only paths bound in, pivoted to) and ends in `execve`; a warm plan
//! ([`warm`]) maps its own ids, keeps the zygote's root and returns to the interpreter.

use std::borrow::Cow;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use seccompiler::BpfProgram;

use crate::child::{CAP_SETGID, CAP_SETUID, FIRST_FREE_FD, ZYGOTE_ID};
use crate::ids::HostIds;
use crate::limits::{self, SpawnLimits};
use crate::{seccomp, ExecRequest, SandboxConfig, SandboxError};

/// Where the new root is assembled before `pivot_root` (inside the child's own mount namespace).
const STAGE: &str = "/tmp";
const DEVICES: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"];
/// Capabilities a zygote keeps (as ambient capabilities, across its `execve`): switching to an
/// execution's id in its own user namespace before each clone ([`crate::ids::ExecutionIds`]).
const ZYGOTE_CAPS: u64 = 1 << CAP_SETUID | 1 << CAP_SETGID;

/// Who maps the child's ids.
pub enum Ids {
    /// Cold: the parent writes the maps, then releases the child through `sync`; the child then takes
    /// on `inner_id`.
    FromParent { sync: libc::c_int, inner_id: libc::uid_t },
    /// Warm: the child writes `map` (root inside is `id`, its own id in the zygote's namespace) itself.
    Own { map: CString },
}

/// A warm execution's id map: root inside is `id` (its own id in the zygote's namespace; one id).
pub fn own_id_map(id: libc::uid_t) -> Result<CString, SandboxError> {
    cstring(format!("0 {id} 1\n"))
}

/// A bind mount. The child opens `host_path` (`O_PATH`) into descriptor `slot` before the staging
/// tmpfs hides it, then binds `source` = `/proc/self/fd/<slot>`: a descriptor opened by the parent
/// would name a mount of the parent's namespace, which the kernel refuses to bind (EINVAL). The
/// slots are the first descriptors the child opens once it has closed every inherited one
/// ([`crate::child::FIRST_FREE_FD`] and up), so they cannot be any descriptor the trainer holds.
pub struct Bind {
    pub host_path: CString,
    pub slot: libc::c_int,
    pub source: CString,
    pub target: CString,
    /// Flags for the read-only remount, including those the kernel locks from the source mount.
    pub remount_flags: libc::c_ulong,
    pub read_only: bool,
}

impl Bind {
    /// The `index`-th bind of a new root: `host_path` at `target` (under the stage), remounted read-only
    /// with `remount_flags` if given.
    fn new(
        index: usize,
        host_path: CString,
        target: &Path,
        remount_flags: Option<libc::c_ulong>,
    ) -> Result<Self, SandboxError> {
        let slot = libc::c_int::try_from(index)
            .ok()
            .and_then(|i| FIRST_FREE_FD.checked_add(i))
            .ok_or_else(|| SandboxError::Invalid("too many read-only paths".into()))?;
        Ok(Bind {
            host_path,
            slot,
            source: cstring(format!("/proc/self/fd/{slot}"))?,
            target: cstring(target.as_os_str().as_bytes())?,
            remount_flags: remount_flags.unwrap_or(0),
            read_only: remount_flags.is_some(),
        })
    }
}

/// A cold start's new root.
pub struct NewRoot {
    pub stage: CString,                 // mount point of the new root before pivot_root
    pub stage_opts: CString,            // tmpfs options of the new root
    pub dirs: Vec<CString>,             // directories to create under the stage, parents first
    pub files: Vec<CString>,            // empty files to create (bind targets of device nodes)
    pub links: Vec<(CString, CString)>, // (destination, link) for symlinked top-level paths
    pub binds: Vec<Bind>,
    pub old_root: CString,       // <stage>/.old
    pub old_root_after: CString, // "/.old"
}

/// The program a cold start execs.
pub struct Exec {
    /// Owners of the strings `argv_ptrs`/`envp_ptrs` point into (kept alive, never read directly).
    _argv: Vec<CString>,
    _env: Vec<CString>,
    pub argv_ptrs: Vec<*const libc::c_char>,
    pub envp_ptrs: Vec<*const libc::c_char>,
}

/// Everything the child needs, prepared before `clone3`.
pub struct Plan<'a> {
    pub ids: Ids,
    pub new_root: Option<NewRoot>,
    /// Where the scratch tmpfs goes (before a cold start's pivot: under the stage) and its options.
    pub scratch: CString,
    pub scratch_opts: CString,
    /// Apply Landlock (not in a zygote: its children must still write their id maps).
    pub landlock: bool,
    /// Mount the fresh `/proc` read-only (not in a zygote: its children write their id maps there), so
    /// that nothing the program runs can write a `/proc` file, `oom_score_adj` included.
    pub read_only_proc: bool,
    pub rlimits: Vec<(libc::__rlimit_resource_t, libc::rlim_t)>,
    /// Capabilities kept (a mask of `CAP_*` bits), raised as ambient so that they survive `execve`.
    pub kept_caps: u64,
    pub filters: Cow<'a, [BpfProgram]>,
    /// The pipes to place on 0-4: stdin, stdout, stderr, result channel, payload.
    pub fds: [libc::c_int; 5],
    pub report: libc::c_int,
    /// `None`: return to the caller (a zygote's interpreter) instead of `execve`.
    pub exec: Option<Exec>,
}

/// What a cold-started process is: a program (full limits and filters) or a zygote (no resource
/// limits of its own, a filter that still lets it create namespaces for its children).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Program,
    Zygote,
}

impl Role {
    /// A zygote is not root of its namespace: since Linux 5.12 a user namespace may map its parent's
    /// uid 0 only if its creator held CAP_SETFCAP, and the zygote holds only CAP_SETUID and CAP_SETGID.
    fn inner_id(self) -> libc::uid_t {
        match self {
            Role::Program => 0,
            Role::Zygote => ZYGOTE_ID,
        }
    }
}

pub fn cstring(s: impl AsRef<[u8]>) -> Result<CString, SandboxError> {
    CString::new(s.as_ref()).map_err(|_| SandboxError::Invalid("NUL byte in a path, argument or variable".into()))
}

/// Files and directories the scratch tmpfs holds per MiB of its size: an inode costs host kernel memory
/// (~1 KB of slab) that the size limit does not count, so empty files could pin gigabytes without it.
const SCRATCH_INODES_PER_MB: u64 = 64;
/// At least this many, for a small scratch.
const SCRATCH_INODES_MIN: u64 = 1024;

fn scratch_opts(scratch_mb: u64) -> Result<CString, SandboxError> {
    let inodes = scratch_mb.saturating_mul(SCRATCH_INODES_PER_MB).max(SCRATCH_INODES_MIN);
    cstring(format!("size={}m,mode=1777,nr_inodes={inodes}", scratch_mb.max(1)))
}

/// Mount flags the kernel locks on a bind of `path` inside a user namespace: a remount must keep them.
fn locked_flags(path: &Path) -> Result<libc::c_ulong, SandboxError> {
    use rustix::fs::StatVfsMountFlags as F;

    let st = rustix::fs::statvfs(path)
        .map_err(|e| SandboxError::Setup(format!("statvfs {}: {}", path.display(), std::io::Error::from(e))))?;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (F::NOSUID, libc::MS_NOSUID),
        (F::NODEV, libc::MS_NODEV),
        (F::NOEXEC, libc::MS_NOEXEC),
        (F::NOATIME, libc::MS_NOATIME),
        (F::NODIRATIME, libc::MS_NODIRATIME),
        (F::RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag.contains(st_flag) {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// Directories to create under the stage for `target`, parents first, skipping ones already listed.
fn push_dirs(stage: &Path, target: &Path, dirs: &mut Vec<PathBuf>) {
    let mut acc = stage.to_path_buf();
    for comp in target.components().skip(1) {
        acc.push(comp);
        if !dirs.contains(&acc) {
            dirs.push(acc.clone());
        }
    }
}

/// The new root of a cold start: `cfg`'s read-only and mapped paths, the device nodes, /tmp, /proc.
fn new_root(cfg: &SandboxConfig) -> Result<NewRoot, SandboxError> {
    let stage = Path::new(STAGE);
    let mut dirs = Vec::new();
    let mut binds = Vec::new();
    let mut paths: Vec<PathBuf> = cfg.read_only_paths.iter().filter(|p| p.exists()).cloned().collect();
    paths.sort();
    paths.dedup();
    // A path below another one is visible through it already.
    let roots: Vec<PathBuf> =
        paths.iter().filter(|p| !paths.iter().any(|q| q != *p && p.starts_with(q))).cloned().collect();
    let mapped = cfg.mapped_paths.iter().map(|(host, inside)| (host, inside));
    for (path, inside) in roots.iter().map(|p| (p, p)).chain(mapped) {
        if !path.is_absolute() || !inside.is_absolute() {
            return Err(SandboxError::Invalid(format!("read-only path {} is not absolute", path.display())));
        }
        let is_link = std::fs::symlink_metadata(path).map(|m| m.file_type().is_symlink()).unwrap_or(false);
        let c = cstring(path.as_os_str().as_bytes())?;
        let target = stage.join(inside.strip_prefix("/").unwrap_or(inside));
        if is_link && path == inside {
            // e.g. /lib -> usr/lib on merged-/usr systems: recreate the link instead of binding.
            continue;
        }
        push_dirs(stage, inside, &mut dirs);
        let remount = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV;
        binds.push(Bind::new(binds.len(), c, &target, Some(remount | locked_flags(path)?))?);
    }
    let mut files = Vec::new();
    push_dirs(stage, Path::new("/dev"), &mut dirs);
    for dev in DEVICES.iter().filter(|d| Path::new(d).exists()) {
        let target = stage.join(dev.trim_start_matches('/'));
        files.push(cstring(target.as_os_str().as_bytes())?);
        // Read-only: opening a device for writing stays allowed (a special file needs no write access to
        // its mount), but its metadata cannot change (`utimensat` on `/dev/zero` would be seen by every later
        // execution: a channel between them). Not `nodev`, which would make the node unusable.
        let remount = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID;
        binds.push(Bind::new(binds.len(), cstring(dev)?, &target, Some(remount | locked_flags(Path::new(dev))?))?);
    }
    for d in ["tmp", "proc", ".old"] {
        push_dirs(stage, &Path::new("/").join(d), &mut dirs);
    }
    // Symlinked top-level paths (merged /usr): recreate them as links inside.
    let mut links = Vec::new();
    for path in &roots {
        if let Ok(dest) = std::fs::read_link(path) {
            links.push((
                cstring(dest.as_os_str().as_bytes())?,
                cstring(stage.join(path.strip_prefix("/").unwrap_or(path)).as_os_str().as_bytes())?,
            ));
        }
    }
    Ok(NewRoot {
        stage: cstring(STAGE)?,
        stage_opts: cstring("size=1m,mode=0755")?,
        dirs: dirs.iter().map(|d| cstring(d.as_os_str().as_bytes())).collect::<Result<_, _>>()?,
        files,
        links,
        binds,
        old_root: cstring(format!("{STAGE}/.old"))?,
        old_root_after: cstring("/.old")?,
    })
}

fn exec(req: &ExecRequest) -> Result<Exec, SandboxError> {
    if req.argv.is_empty() || !req.argv[0].starts_with('/') {
        return Err(SandboxError::Invalid("argv[0] must be an absolute path".into()));
    }
    let argv: Vec<CString> = req.argv.iter().map(cstring).collect::<Result<_, _>>()?;
    let env: Vec<CString> = req.env.iter().map(|(k, v)| cstring(format!("{k}={v}"))).collect::<Result<_, _>>()?;
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut envp_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    envp_ptrs.push(std::ptr::null());
    Ok(Exec { _argv: argv, _env: env, argv_ptrs, envp_ptrs })
}

/// The plan of a cold start: `req` in a new root, as `role`, with the given child ends of its pipes.
pub fn cold(
    req: &ExecRequest,
    cfg: &SandboxConfig,
    ids: &HostIds,
    fds: [libc::c_int; 5],
    sync: libc::c_int,
    report: libc::c_int,
    role: Role,
) -> Result<Plan<'static>, SandboxError> {
    let exec = exec(req)?;
    let rlimits = match role {
        Role::Program => SpawnLimits::from_config(cfg, limits::nproc_limit(cfg, ids)).rlimits().to_vec(),
        // Each execution sets its own limits; the zygote only must not dump core.
        Role::Zygote => vec![(libc::RLIMIT_CORE, 0), (libc::RLIMIT_MEMLOCK, 0)],
    };
    let filters = match role {
        Role::Program => seccomp::filters()?.to_vec(),
        Role::Zygote => vec![seccomp::zygote_filter()?],
    };
    Ok(Plan {
        ids: Ids::FromParent { sync, inner_id: role.inner_id() },
        new_root: Some(new_root(cfg)?),
        scratch: cstring(format!("{STAGE}/tmp"))?,
        scratch_opts: scratch_opts(cfg.scratch_mb)?,
        landlock: role == Role::Program,
        read_only_proc: role == Role::Program,
        rlimits,
        kept_caps: if role == Role::Zygote { ZYGOTE_CAPS } else { 0 },
        filters: Cow::Owned(filters),
        fds,
        report,
        exec: Some(exec),
    })
}

/// The plan of a warm start: a zygote's child with `limits`, under `filters`, on the given pipes, as
/// `id` (in the zygote's namespace).
pub fn warm<'a>(
    fds: [libc::c_int; 5],
    report: libc::c_int,
    limits: &SpawnLimits,
    filters: &'a [BpfProgram],
    id: libc::uid_t,
) -> Result<Plan<'a>, SandboxError> {
    if limits.open_files < crate::MIN_OPEN_FILES {
        return Err(SandboxError::Invalid(format!("max_open_files below {}", crate::MIN_OPEN_FILES)));
    }
    Ok(Plan {
        ids: Ids::Own { map: own_id_map(id)? },
        new_root: None,
        scratch: cstring("/tmp")?,
        scratch_opts: scratch_opts(limits.scratch_mb)?,
        landlock: true,
        read_only_proc: true,
        rlimits: limits.rlimits().to_vec(),
        kept_caps: 0,
        filters: Cow::Borrowed(filters),
        fds,
        report,
        exec: None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn own_id_map_maps_root_to_one_id() {
        assert_eq!(super::own_id_map(1001).unwrap().as_bytes(), b"0 1001 1\n");
    }
}
