//! The work one comparison may do, counted in units of about a nanosecond of measured work, so every call
//! stays within milliseconds whatever the input (issue 23: ≤ 10 ms for answers ≤ 10 KB) and ends with the
//! same verdict on a busy machine as on an idle one (work is counted, not timed).
//!
//! [`start`] opens a budget on the current thread for one comparison. Exact arithmetic draws on its own
//! share first ([`charge_exact`]: when it runs out, a value is simply "not exact" and is compared in high
//! precision instead); everything draws on the total ([`charge`]): when it runs out, the comparison is over a
//! limit and the answers are judged not equal.

use std::cell::Cell;

/// Units one comparison may spend. A unit is about a nanosecond of this project's 2-core VM: the charges are
/// measured costs of the operations (products of big integers and fractions, high-precision products and
/// functions), so a comparison that spends them all takes about 5 ms there (~8-10 ms measured with the work
/// charges do not count: parsing, pairing the elements of large sets; the goal is 10 ms).
pub const TOTAL: u64 = 5_000_000;
/// Units exact arithmetic may spend before values are left to high precision.
pub const EXACT: u64 = 2_500_000;

#[derive(Clone, Copy)]
struct State {
    total: u64,
    exact: u64,
    exhausted: bool,
    /// Scopes open on this thread (a comparison inside a verification shares the verification's budget).
    open: u32,
}

const UNLIMITED: State = State { total: u64::MAX, exact: u64::MAX, exhausted: false, open: 0 };

thread_local! {
    static STATE: Cell<State> = const { Cell::new(UNLIMITED) };
}

/// A budget open on this thread; the thread is unlimited again when the outermost scope is dropped (so work
/// outside a comparison, as in tests, never meets a spent budget).
#[must_use = "the budget closes when this is dropped"]
pub struct Scope(());

impl Drop for Scope {
    fn drop(&mut self) {
        STATE.with(|s| {
            let st = s.get();
            s.set(if st.open <= 1 { UNLIMITED } else { State { open: st.open - 1, ..st } });
        });
    }
}

/// Open a budget for one comparison or verification on this thread. Inside an open one (the comparisons a
/// verification makes while finding its answer, and its final one), the open budget is shared, not renewed.
pub fn start() -> Scope {
    STATE.with(|s| {
        let st = s.get();
        s.set(if st.open == 0 {
            State { total: TOTAL, exact: EXACT, exhausted: false, open: 1 }
        } else {
            State { open: st.open + 1, ..st }
        });
    });
    Scope(())
}

/// Spend `units` of the total; false (and the comparison is over its limit) when they are not there.
pub fn charge(units: u64) -> bool {
    STATE.with(|s| {
        let mut st = s.get();
        if st.exhausted || st.total < units {
            st.exhausted = true;
            st.total = 0;
            s.set(st);
            return false;
        }
        st.total -= units;
        s.set(st);
        true
    })
}

/// Spend `units` on exact arithmetic (and the total); false when exact arithmetic should give up.
pub fn charge_exact(units: u64) -> bool {
    let ok = STATE.with(|s| {
        let mut st = s.get();
        if st.exact < units {
            st.exact = 0;
            s.set(st);
            return false;
        }
        st.exact -= units;
        s.set(st);
        true
    });
    ok && charge(units)
}

/// Has the total run out since [`start`]?
pub fn exhausted() -> bool {
    STATE.with(|s| s.get().exhausted)
}

/// Words (64-bit limbs) of a number of `bits` bits, at least 1: the unit of the costs charged.
pub fn words(bits: u64) -> u64 {
    bits / 64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spends_and_runs_out() {
        let scope = start();
        assert!(charge(10));
        assert!(!exhausted());
        assert!(charge_exact(EXACT));
        assert!(!charge_exact(1), "the exact share is spent");
        assert!(!exhausted(), "an exhausted exact share is not the end of the comparison");
        assert!(!charge(TOTAL));
        assert!(exhausted());
        assert!(!charge(1));
        let inner = start();
        assert!(exhausted(), "a nested scope shares the spent budget");
        drop(inner);
        drop(scope);
        let _scope = start();
        assert!(!exhausted() && charge(1));
    }
}
