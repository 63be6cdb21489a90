//! Messages between the trainer and a zygote: a spawn request (limits, plus the execution's pipes as
//! `SCM_RIGHTS`), the reply (pid and pidfd, or an errno), and the exit record the zygote writes on the
//! execution's status pipe once it has reaped it.

use std::os::fd::{FromRawFd, OwnedFd, RawFd};

/// Descriptors sent with a spawn request: stdin, stdout, stderr, result channel and payload (the
/// child's ends), then the status pipe's write end (kept by the zygote).
pub const SPAWN_FDS: usize = 6;

/// Limits of one execution (rlimits and the scratch tmpfs size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpawnLimits {
    pub memory_bytes: u64,
    pub cpu_s: u64,
    pub file_bytes: u64,
    pub open_files: u64,
    pub processes: u64,
    pub scratch_mb: u64,
}

impl SpawnLimits {
    pub const SIZE: usize = 6 * 8;

    /// The limits of `cfg`, with `processes` as RLIMIT_NPROC (how it is counted depends on the start).
    pub fn from_config(cfg: &super::SandboxConfig, processes: u64) -> Self {
        Self {
            memory_bytes: cfg.memory_mb.saturating_mul(1 << 20),
            cpu_s: cfg.timeout.as_secs() + 2, // backstop only: the parent enforces the wall clock
            file_bytes: cfg.max_file_mb.saturating_mul(1 << 20),
            open_files: cfg.max_open_files,
            processes,
            scratch_mb: cfg.scratch_mb,
        }
    }

    pub fn to_bytes(self) -> [u8; Self::SIZE] {
        let mut out = [0u8; Self::SIZE];
        let fields = [self.memory_bytes, self.cpu_s, self.file_bytes, self.open_files, self.processes, self.scratch_mb];
        for (chunk, v) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(b: &[u8]) -> Option<Self> {
        if b.len() != Self::SIZE {
            return None;
        }
        let f = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        Some(Self {
            memory_bytes: f(0),
            cpu_s: f(1),
            file_bytes: f(2),
            open_files: f(3),
            processes: f(4),
            scratch_mb: f(5),
        })
    }

    /// The rlimits an execution runs under.
    pub fn rlimits(&self) -> [(libc::__rlimit_resource_t, libc::rlim_t); 10] {
        [
            (libc::RLIMIT_AS, self.memory_bytes),
            (libc::RLIMIT_CPU, self.cpu_s),
            (libc::RLIMIT_FSIZE, self.file_bytes),
            (libc::RLIMIT_NOFILE, self.open_files),
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NPROC, self.processes),
            (libc::RLIMIT_MEMLOCK, 0),
            (libc::RLIMIT_MSGQUEUE, 0),
            // No real-time policy (it would run ahead of every fair share) and no raised priority.
            (libc::RLIMIT_RTPRIO, 0),
            (libc::RLIMIT_NICE, 0),
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnReply {
    /// The child's pid in the zygote's namespace (its pidfd travels with the reply).
    Started(i32),
    Failed(i32),
}

impl SpawnReply {
    pub fn to_bytes(self) -> [u8; 8] {
        let v: i64 = match self {
            SpawnReply::Started(pid) => i64::from(pid),
            SpawnReply::Failed(errno) => -i64::from(errno.max(1)),
        };
        v.to_le_bytes()
    }

    pub fn from_bytes(b: &[u8]) -> Option<Self> {
        let v = i64::from_le_bytes(b.try_into().ok()?);
        Some(if v >= 0 { SpawnReply::Started(v as i32) } else { SpawnReply::Failed((-v) as i32) })
    }
}

/// How an execution ended, as the zygote saw it when reaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitRecord {
    pub wait_status: i32,
    /// Index into [`super::zygote::STEPS`] of a failed set-up step, or -1.
    pub setup_step: i32,
    pub setup_errno: i32,
    pub cpu_us: u64,
}

impl ExitRecord {
    pub const SIZE: usize = 20;

    pub fn to_bytes(self) -> [u8; Self::SIZE] {
        let mut out = [0u8; Self::SIZE];
        out[0..4].copy_from_slice(&self.wait_status.to_le_bytes());
        out[4..8].copy_from_slice(&self.setup_step.to_le_bytes());
        out[8..12].copy_from_slice(&self.setup_errno.to_le_bytes());
        out[12..20].copy_from_slice(&self.cpu_us.to_le_bytes());
        out
    }

    pub fn from_bytes(b: &[u8]) -> Option<Self> {
        if b.len() != Self::SIZE {
            return None;
        }
        let i = |r: std::ops::Range<usize>| i32::from_le_bytes(b[r].try_into().unwrap_or_default());
        Some(Self {
            wait_status: i(0..4),
            setup_step: i(4..8),
            setup_errno: i(8..12),
            cpu_us: u64::from_le_bytes(b[12..20].try_into().ok()?),
        })
    }
}

/// Room for `n` descriptors in a control message (CMSG_SPACE), as u64 words for alignment.
fn cmsg_buffer(n: usize) -> Vec<u64> {
    // SAFETY: CMSG_SPACE is a pure computation.
    let bytes = unsafe { libc::CMSG_SPACE((n * std::mem::size_of::<RawFd>()) as u32) } as usize;
    vec![0u64; bytes.div_ceil(8)]
}

/// Send one datagram with `fds` attached.
pub fn send_with_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let mut iov = libc::iovec { iov_base: data.as_ptr() as *mut libc::c_void, iov_len: data.len() };
    let mut cmsg = cmsg_buffer(fds.len());
    // SAFETY: msghdr and control buffer are valid for the call; CMSG macros stay inside the buffer.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            msg.msg_control = cmsg.as_mut_ptr().cast();
            msg.msg_controllen = cmsg.len() * 8;
            let hdr = libc::CMSG_FIRSTHDR(&msg);
            (*hdr).cmsg_level = libc::SOL_SOCKET;
            (*hdr).cmsg_type = libc::SCM_RIGHTS;
            (*hdr).cmsg_len = libc::CMSG_LEN(std::mem::size_of_val(fds) as u32) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(hdr).cast::<RawFd>(), fds.len());
        }
        loop {
            if libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) >= 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

/// Receive one datagram into `buf` with up to `max_fds` descriptors (close-on-exec). Returns the
/// byte count (0: the peer closed) and the descriptors.
pub fn recv_with_fds(sock: RawFd, buf: &mut [u8], max_fds: usize) -> std::io::Result<(usize, Vec<OwnedFd>)> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let mut cmsg = cmsg_buffer(max_fds);
    // SAFETY: as in `send_with_fds`; received descriptors are owned right away.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cmsg.as_mut_ptr().cast();
        msg.msg_controllen = cmsg.len() * 8;
        let n = loop {
            let n = libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 {
                break n as usize;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        };
        let mut fds = Vec::new();
        let mut hdr = libc::CMSG_FIRSTHDR(&msg);
        while !hdr.is_null() {
            if (*hdr).cmsg_level == libc::SOL_SOCKET && (*hdr).cmsg_type == libc::SCM_RIGHTS {
                let count = ((*hdr).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<RawFd>();
                let data = libc::CMSG_DATA(hdr).cast::<RawFd>();
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                }
            }
            hdr = libc::CMSG_NXTHDR(&msg, hdr);
        }
        if msg.msg_flags & libc::MSG_CTRUNC != 0 {
            return Err(std::io::Error::other("descriptors truncated"));
        }
        Ok((n, fds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let l = SpawnLimits {
            memory_bytes: 1 << 30,
            cpu_s: 7,
            file_bytes: 3,
            open_files: 256,
            processes: 32,
            scratch_mb: 64,
        };
        assert_eq!(SpawnLimits::from_bytes(&l.to_bytes()), Some(l));
        for r in [SpawnReply::Started(0), SpawnReply::Started(123), SpawnReply::Failed(libc::EPERM)] {
            assert_eq!(SpawnReply::from_bytes(&r.to_bytes()), Some(r));
        }
        let e = ExitRecord { wait_status: 9, setup_step: -1, setup_errno: 0, cpu_us: 12345 };
        assert_eq!(ExitRecord::from_bytes(&e.to_bytes()), Some(e));
        assert_eq!(SpawnLimits::from_bytes(&[0; 3]), None);
    }

    #[test]
    fn passes_descriptors() {
        let mut sv = [0; 2];
        // SAFETY: valid out-array.
        assert_eq!(unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET, 0, sv.as_mut_ptr()) }, 0);
        let devnull = std::fs::File::open("/dev/null").unwrap();
        use std::os::fd::AsRawFd;
        send_with_fds(sv[0], b"hello", &[devnull.as_raw_fd(), devnull.as_raw_fd()]).unwrap();
        let mut buf = [0u8; 16];
        let (n, fds) = recv_with_fds(sv[1], &mut buf, SPAWN_FDS).unwrap();
        assert_eq!((&buf[..n], fds.len()), (&b"hello"[..], 2));
        // SAFETY: closing our socketpair.
        unsafe {
            libc::close(sv[0]);
            libc::close(sv[1]);
        }
    }
}
