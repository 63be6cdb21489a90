//! Messages between the trainer and a zygote: a spawn request (limits, plus the execution's pipes as
//! `SCM_RIGHTS`), the reply (pid and pidfd, or an errno), and the exit record the zygote writes on the
//! execution's status pipe once it has reaped it.

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};

use rustix::io::Errno;
use rustix::net::{
    recvmsg, sendmsg, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};

pub use crate::limits::SpawnLimits;

/// Descriptors sent with a spawn request: stdin, stdout, stderr, result channel and payload (the
/// child's ends), then the status pipe's write end (kept by the zygote).
pub const SPAWN_FDS: usize = 6;

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
    /// The [`crate::setup::Step`] code of a failed set-up step, or -1.
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

/// Send one datagram with `fds` attached.
pub fn send_with_fds(sock: BorrowedFd<'_>, data: &[u8], fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(SPAWN_FDS))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(std::io::Error::other("too many descriptors for one message"));
    }
    loop {
        match sendmsg(sock, &[IoSlice::new(data)], &mut control, SendFlags::NOSIGNAL) {
            Ok(_) => return Ok(()),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Receive one datagram into `buf` with up to [`SPAWN_FDS`] descriptors (close-on-exec). Returns the
/// byte count (0: the peer closed) and the descriptors.
pub fn recv_with_fds(sock: BorrowedFd<'_>, buf: &mut [u8]) -> std::io::Result<(usize, Vec<OwnedFd>)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(SPAWN_FDS))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let received = loop {
        match recvmsg(sock, &mut [IoSliceMut::new(buf)], &mut control, RecvFlags::CMSG_CLOEXEC) {
            Ok(r) => break r,
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    };
    let mut fds = Vec::new();
    for message in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = message {
            fds.extend(received);
        }
    }
    if received.flags.contains(ReturnFlags::CTRUNC) {
        return Err(std::io::Error::other("descriptors truncated"));
    }
    Ok((received.bytes, fds))
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
        use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
        use std::os::fd::AsFd;

        let (a, b) = socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None).unwrap();
        let devnull = std::fs::File::open("/dev/null").unwrap();
        send_with_fds(a.as_fd(), b"hello", &[devnull.as_fd(), devnull.as_fd()]).unwrap();
        let mut buf = [0u8; 16];
        let (n, fds) = recv_with_fds(b.as_fd(), &mut buf).unwrap();
        assert_eq!((&buf[..n], fds.len()), (&b"hello"[..], 2));
        drop(a);
        assert_eq!(recv_with_fds(b.as_fd(), &mut buf).unwrap().0, 0);
    }
}
