//! Cold starts: clone a child from the trainer into fresh namespaces, map its ids, release it to run
//! its set-up ([`crate::setup`]) and exec the program; also how a zygote itself is started.

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use rustix::process::{pidfd_send_signal, waitpid, Pid, Signal, WaitOptions};

use crate::clone::{clone3, NAMESPACES};
use crate::ids::{write_id_maps, HostIds, ZYGOTE_EXECUTION_IDS};
use crate::io::{self, pipe};
use crate::plan::{self, Ids, Plan, Role};
use crate::setup::{self, Step};
use crate::{cgroup, verdict, ExecRequest, ExecResult, SandboxConfig, SandboxError};

/// Kill and reap a child that failed before running anything (a single process at that point).
fn abort(pid: libc::pid_t, pidfd: &OwnedFd) {
    let _ = pidfd_send_signal(pidfd, Signal::KILL);
    let _ = waitpid(Pid::from_raw(pid), WaitOptions::empty());
}

/// Clone a child into fresh namespaces running `plan`, map its ids, put it in `group`, release it.
fn start_child(
    plan: &Plan<'_>,
    ids: &HostIds,
    group: Option<&cgroup::Group>,
    sync_w: OwnedFd,
) -> Result<(libc::pid_t, OwnedFd), SandboxError> {
    let Ids::FromParent { inner_id, .. } = plan.ids else {
        return Err(SandboxError::Setup("a cold start's plan must have the parent map its ids".into()));
    };
    let mut pidfd: libc::c_int = -1;
    // SAFETY: the child only runs the set-up, which ends in execve or _exit.
    let pid = unsafe { clone3(NAMESPACES, &mut pidfd) };
    if pid == 0 {
        // SAFETY: we are the child of clone3 and the plan is complete.
        unsafe {
            setup::apply(plan);
            libc::_exit(127) // not reached: a cold plan ends in execve or a reported failure
        }
    }
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        let why = format!("clone3 with new namespaces failed: {e}");
        return Err(SandboxError::busy_or(e.raw_os_error(), why, SandboxError::Unsupported));
    }
    let pid = pid as libc::pid_t;
    // SAFETY: the kernel stored a fresh pidfd.
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    let attached = write_id_maps(pid, ids, inner_id).and_then(|()| match group {
        Some(g) => g.attach(pid).map_err(SandboxError::Setup),
        None => Ok(()),
    });
    if let Err(e) = attached {
        abort(pid, &pidfd);
        return Err(e);
    }
    if rustix::io::write(&sync_w, b"1") != Ok(1) {
        abort(pid, &pidfd);
        return Err(SandboxError::Setup("could not release the child".into()));
    }
    Ok((pid, pidfd))
}

/// Start a zygote (see [`crate::zygote`]) running `req.argv` with `control` on its fd 3; returns its pid,
/// the read end of its stderr, and its host ids (its own, then its executions'; to release once it is
/// reaped).
pub(crate) fn launch_zygote(
    req: &ExecRequest,
    cfg: &SandboxConfig,
    control: OwnedFd,
) -> Result<(libc::pid_t, OwnedFd, HostIds), SandboxError> {
    let (stdin_r, stdin_w) = pipe()?;
    let (log_r, log_w) = pipe()?;
    let (pay_r, pay_w) = pipe()?;
    let (sync_r, sync_w) = pipe()?;
    let (report_r, report_w) = pipe()?;
    drop((stdin_w, pay_w));
    let ids = HostIds::acquire_range(1 + ZYGOTE_EXECUTION_IDS as usize);
    let fds = [stdin_r.as_raw_fd(), log_w.as_raw_fd(), log_w.as_raw_fd(), control.as_raw_fd(), pay_r.as_raw_fd()];
    let plan = plan::cold(req, cfg, &ids, fds, sync_r.as_raw_fd(), report_w.as_raw_fd(), Role::Zygote)?;
    let (pid, pidfd) = start_child(&plan, &ids, None, sync_w)?;
    drop((stdin_r, log_w, pay_r, sync_r, report_w, control));
    // The report pipe closes on execve (success) or carries the failed step.
    let mut buf = [0u8; crate::child::FAILURE_LEN];
    let n = io::read_full(report_r.as_fd(), &mut buf);
    if let Some((step, errno)) = crate::child::decode_failure(&buf[..n]) {
        abort(pid, &pidfd);
        return Err(SandboxError::Setup(format!("zygote: {}", Step::describe_failure(step, errno))));
    }
    Ok((pid, log_r, ids))
}

/// Run one program in a fresh sandbox (a cold start: clone, set up, execve) and collect its outcome.
pub fn run(req: &ExecRequest, cfg: &SandboxConfig) -> Result<ExecResult, SandboxError> {
    cfg.validate()?;
    let (child_ends, ends) = io::execution_pipes()?;
    let (sync_r, sync_w) = pipe()?;
    let (report_r, report_w) = pipe()?;
    let ids = HostIds::acquire();
    let group =
        cgroup::Group::create(cfg.memory_mb.saturating_mul(1 << 20), cfg.max_processes).map_err(SandboxError::Setup)?;
    let plan = plan::cold(
        req,
        cfg,
        &ids,
        child_ends.each_ref().map(|fd| fd.as_raw_fd()),
        sync_r.as_raw_fd(),
        report_w.as_raw_fd(),
        Role::Program,
    )?;
    let start = Instant::now();
    let (pid, pidfd) = start_child(&plan, &ids, group.as_ref(), sync_w)?;
    drop((child_ends, sync_r, report_w));
    let collected = io::watch(&pidfd, ends, Some(report_r), req, cfg, start);
    let oom_killed = |g: &Option<cgroup::Group>| g.as_ref().is_some_and(|g| g.oom_killed());
    let exited = collected.exited;
    let reaped = io::reap(pid, pidfd, exited, move |reaped_now| {
        // Runs once PID 1 is reaped (maybe on a background thread): the uid and the group are free again.
        let oom = reaped_now && oom_killed(&group);
        drop(ids);
        if let Some(g) = group {
            // Removing a memory cgroup waits for the kernel to offline it (~3 ms): not on the verdict's path.
            std::thread::spawn(move || drop(g));
        }
        oom
    });
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    drop(plan);

    if let Some((step, errno)) = collected.setup_failure {
        return Err(SandboxError::Setup(Step::describe_failure(step, errno)));
    }
    let (exit, oom) = match reaped {
        io::Reaped::Now(status, cpu_ms, oom) => (Ok((status, cpu_ms)), oom),
        io::Reaped::Later(cpu_ms) => (Err(cpu_ms), false),
    };
    Ok(verdict::verdict(collected, exit, oom, wall_ms))
}
