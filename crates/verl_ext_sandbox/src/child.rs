//! What the parent and a sandboxed child's set-up agree on: descriptor numbers, capability bits, the zygote's
//! id, and how a failed set-up step is reported. A leaf: `plan`, `setup`, `zygote` and `io` import it, and it
//! imports none of them, so those modules depend in one direction (plan -> setup -> zygote, io beside them).

// Capability numbers (linux/capability.h).
pub const CAP_SETGID: u32 = 6;
pub const CAP_SETUID: u32 = 7;
/// Where the report pipe goes (next to the pipes on 0-4).
pub const REPORT_FD: libc::c_int = 5;
/// The lowest descriptor the child's own set-up opens once the inherited ones are closed: the
/// plan's bind sources take this and the next ones, in order ([`crate::plan`]).
pub const FIRST_FREE_FD: libc::c_int = REPORT_FD + 1;

/// What the set-up step that raises the OOM score writes: the OOM killer's first choice.
pub const OOM_SCORE_ADJ: &[u8] = b"1000";

/// The zygote's uid and gid inside its own user namespace. As root, the trainer maps the ids after it
/// too ([`crate::ids::ZYGOTE_EXECUTION_IDS`]), and each execution is cloned as one of those, which its
/// root then maps to: the kernel's per-user counts (descriptors in flight, pipe buffers, processes) are
/// then per execution. Otherwise executions map the zygote's id and share those counts.
pub const ZYGOTE_ID: libc::uid_t = 1000;

/// Bytes a failing child writes on its report pipe: its step's code, then errno (low byte first).
pub const FAILURE_LEN: usize = 3;

/// The report of the set-up step `code` failing with `errno`.
pub fn encode_failure(code: u8, errno: i32) -> [u8; FAILURE_LEN] {
    [code, (errno & 0xff) as u8, ((errno >> 8) & 0xff) as u8]
}

/// `(step code, errno)` from what a child wrote on its report pipe (`None` unless a whole report).
pub fn decode_failure(msg: &[u8]) -> Option<(i32, i32)> {
    let &[step, lo, hi] = msg else { return None };
    Some((i32::from(step), i32::from(lo) | (i32::from(hi) << 8)))
}
