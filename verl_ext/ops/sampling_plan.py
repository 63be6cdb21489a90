"""Launch plan of the Triton sampler: how a batch is split across programs and how many times each logit is read.

Every pass that reads the logits runs one program per (row block, vocabulary split); with filters a small
per-row combine follows each pass. The passes depend only on which filters *may* be on (known on the host without
reading any tensor), never on the data, and a row takes part in a pass only when its own parameters need it (a program
whose rows are all done returns at once, reading nothing):

* ``stats``: max, sum of exp and NaN check per split (always). With top-k it also counts the first digit of the
  order-preserving fp32 keys for the first threshold search.
* search 1 (top-k, with or without min-p: ``tau1 = max(k-th largest z, t_min)``): counts of the next key digits
  inside the chosen bucket; digits of ``COUNT_DIGITS`` bits, the last one per key, so ``tau1`` and the mass at or
  above it are exact.
* min-p without top-k (``cut``): min-p's threshold ``t_min`` (least ``t`` with ``t - max >= log(min_p)``) is known
  once the statistics are combined, so one pass sums each split's mass at or above it and finds the smallest key
  there (the canonical ``tau1``): no digit search. In a plan with top-k, the first count pass after the statistics
  does this for the rows without top-k (each row's own parameters say which), and they skip the other count passes.
* top-p over a top-k set of at most ``K_MAX`` tokens (``gather``): fewer than ``k`` keys lie above the bucket
  of the last count digit, and that pass gathers them (key and index) into a per-row buffer; the bucket itself
  is described exactly by the last digit's counts (one key per bucket). A combine finds top-p's threshold over
  this exact multiset (bisection over the buffer's keys, masses summed in fixed point so the atomics' order
  does not matter), and each split's kept mass for the draw: no pass of its own.
* search 2 (top-p of the other rows: top-p alone, with min-p alone, or over a top-k above ``K_MAX``): exp-mass
  histograms of ``MASS_DIGITS``-bit digits, the last digit per key, so the threshold is exact. The first digit
  is summed inside ``stats`` (relative to each split's running max, rescaled by the combine), and chosen once
  search 1 (or the cut) has said what top-p renormalises over; the middle one is summed in fixed point by
  integer atomics (exact, so the same in any order); the last one's masses are its keys' counts times their
  value's mass.
* the draw re-reads one split per row: after the last combine one launch sums each split's kept mass, so the
  last launch (the finish) knows which split holds the sampled token and draws from it. Without filters a
  split's kept mass is its whole mass, known from the statistics, so the call is two launches: the statistics
  pass and the finish, which combines the statistics itself (no other combine).

Full reads of each logit per row (plus the draw's ``1 / splits``): no filter 1; min-p alone 2; top-k, with or
without min-p, 3; top-p alone 3; top-k (``k <= K_MAX``) with top-p, with or without min-p, 3; min-p with top-p
4 (the cut, then the 2 mass digits after the first: the first digit's bucket holding ``t_min`` is only partly
kept, so top-p's target is known only after the cut), in any plan. Still 5: top-p over a top-k above ``K_MAX``
(3 count digits, then 2 mass digits). Its kept set can be most of the vocabulary, too large to gather, and top-p's
target is ``top_p`` times that set's mass, known exactly only once the last count digit is in; the mass digits
after it (24 key bits) cannot be fewer than 2 passes with per-bucket sums a program can hold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# Digits of the 32-bit key. Search 1 counts with hardware histograms (cheap per bin), so its digits are wide;
# the last digit is per key and its per-split counts are kept for the draw, hence 10 bits. Search 2 needs
# exp-mass per bucket: its first digit is summed by the statistics pass as a [tile, 2^8] one-hot in registers
# (relative to each split's running max, so in fp32); the middle one by integer atomics of fixed-point masses
# into a per-row buffer of 2^13 buckets (64 KiB), one atomic per key in the bucket; the last is per key, so a
# hardware count histogram gives its masses (count x exp(value)), 11 bits as search 1's.
COUNT_DIGITS: tuple[int, ...] = (11, 11, 10)
MASS_DIGITS: tuple[int, ...] = (8, 13, 11)
# Fraction bits of the middle mass digit's fixed-point masses exp(z - max) <= 1: a row's sum stays below 2^63
# up to MAX_VOCAB keys, and a mass below 2^-40 of the row's largest is far below fp32's rounding of any sum
# that includes the largest (>= 1).
MASS_FIXED_BITS = 40
MAX_VOCAB = 1 << (62 - MASS_FIXED_BITS)
# Programs per pass the plan aims for, per SM: enough to hide latency, few enough that each program streams a
# contiguous slice of at least one block.
PROGRAMS_PER_SM = 4
# Splits per row at any batch size (vocabulary allowing): the draw re-reads one split, so at most a quarter of
# a read, and a large batch still gets several programs per row.
MIN_SPLITS = 4
BLOCK = 512  # elements per load on a GPU; a split is a whole number of blocks
INTERPRETER_BLOCK = 128  # the interpreter runs programs one after another: small tiles, many rows each
# Rows per interpreted program: numpy then works on [rows, ...] arrays, so a large batch (the statistical draw
# tests: thousands of rows) costs few programs. The widest arrays are a count digit's [rows, 2^11] histogram
# and, in plans with mass digits, the combine's [rows, 2^13] sums of the middle one: a tensor holds at most
# TRITON_MAX_NUMEL elements, so those plans take at most 2^20 >> 13 = 128 rows per program.
INTERPRETER_ROWS = 256
TRITON_MAX_NUMEL = 1 << 20
# Elements per load of the statistics pass when it sums search 2's first digit: a [MASS_TILE, 2^8] one-hot tile,
# which must stay in registers (32 x 256 fp32 is 32 per lane at 8 warps). The interpreter's is [rows, tile, 2^8]:
# at most this many elements (< TRITON_MAX_NUMEL), so many rows take narrower tiles and few keep MASS_TILE.
MASS_TILE = 32
INTERPRETER_ONE_HOT = 1 << 19
# Largest top-k whose kept set the last count pass gathers for top-p (fewer than k keys lie above the k-th key's
# bucket): a per-row buffer of K_MAX packed (key, index) entries, 8 KiB, that one program of the combine holds
# in registers. Above it top-p takes the mass passes. 1024 covers the top-k of common rollout settings (tens to
# hundreds).
K_MAX = 1024


@dataclass(frozen=True)
class Pass:
    """One launch that reads the logits: which search it serves (0: statistics only), the digit's width and the
    number of key bits below it, whether it sums exp-mass per bucket, (statistics pass) whether it also sums
    the exp-mass of search 2's first digit, (last count digit) whether it gathers the keys above the
    bucket of rows whose top-p finishes from their top-k set, and whether it serves min-p's cut (the rows of
    search 1 without top-k: the mass at or above a threshold already known; the only work of a pass without a
    digit, ``bits`` 0, in a plan without top-k)."""

    search: int
    bits: int
    shift: int
    weighted: bool
    mass_first: bool = False
    gather: bool = False
    cut: bool = False

    @property
    def final(self) -> bool:
        """The digit is the key's last: one bucket per key value."""
        return self.shift == 0 and self.bits > 0


@dataclass(frozen=True)
class SamplingPlan:
    """What the Triton sampler launches for a ``[batch, vocab]`` call.

    ``passes`` are launched over every split of every row; each row reads its logits once in each pass it takes
    part in (:meth:`row_reads`), and the draw then reads one split per row. ``grid`` is the grid of every pass:
    (row blocks, splits). ``gather``: top-p of rows with a top-k of at most ``K_MAX`` finishes in a combine
    over the set the last count pass gathered. ``min_p``: some row may have min-p (its threshold is searched
    by search 1: the cut, or the count digits with top-k). ``mass_tile``: elements per load of the statistics
    pass when it sums search 2's first digit (a one-hot per element)."""

    batch: int
    vocab: int
    rows_per_program: int
    splits: int
    slice_len: int
    block: int
    passes: tuple[Pass, ...]
    draw: bool
    gather: bool = False
    min_p: bool = False
    mass_tile: int = MASS_TILE

    @property
    def grid(self) -> tuple[int, int]:
        return (_cdiv(self.batch, self.rows_per_program), self.splits)

    @property
    def programs(self) -> int:
        """Programs of each pass over the logits."""
        return self.grid[0] * self.grid[1]

    @property
    def reads_per_logit(self) -> float:
        """Full reads of the logits by a row taking part in every pass (the most any row reads: one per pass),
        plus the draw's re-read of one split in ``splits``."""
        return len(self.passes) + (1 / self.splits if self.draw else 0.0)

    def row_reads(self, *, top_k: int | None = None, top_p: bool = False, min_p: bool = False) -> float:
        """Full reads of the logits by one row with these parameters under this plan, plus the draw's re-read.
        ``top_k`` None, ``<= 0`` or ``>= vocab`` is off, as the kernels read it. The plan must allow them (e.g. an
        on ``top_k`` needs a plan made with top-k)."""
        if top_k is not None and not 0 < top_k < self.vocab:
            top_k = None
        if (top_k is not None and (self.cut or not any(p.search == 1 for p in self.passes))) \
                or (top_p and not self.top_p) or (min_p and not self.min_p):
            raise ValueError("the plan was made without a filter this row has")
        gathered = top_p and top_k is not None and top_k <= K_MAX and self.gather
        cut = min_p and top_k is None  # min-p's threshold is known after the statistics: its cut pass only
        if top_p and not gathered and not any(p.search == 2 for p in self.passes):
            raise ValueError(f"the plan has no mass passes for top-p over a top-k of {top_k} (K_MAX = {K_MAX})")
        # The statistics pass (the first) reads every row; a search's other passes only its rows.
        reads = 1 + sum(1 for p in self.passes[1:] if (p.search == 1 and (p.cut if cut else top_k is not None))
                        or (p.search == 2 and top_p and not gathered))
        return reads + (1 / self.splits if self.draw else 0.0)

    @property
    def cut(self) -> bool:
        """Search 1 is min-p's cut alone (no row has top-k): one pass, no digits."""
        return any(p.cut and p.bits == 0 for p in self.passes)

    @property
    def top_p(self) -> bool:
        """Top-p may be on for some row (mass passes, the gathered set's combine, or both)."""
        return self.gather or any(p.search == 2 for p in self.passes)

    @property
    def filtered(self) -> bool:
        """Some filter may be on (a search, or top-p's gathered set). Without filters the statistics pass is
        followed by one launch: the finish combines the statistics, and each split's kept mass is its whole mass."""
        return len(self.passes) > 1 or self.passes[0].search > 0 or self.passes[0].mass_first or self.gather

    @property
    def launches(self) -> int:
        """Kernel launches: each pass and (filtered) its combine, the setup and first-digit combine of search 2,
        the gathered set's top-p combine, (filtered, with a draw) the splits' kept masses, and the finish (which
        also draws)."""
        if not self.filtered:
            return 2
        return (2 * len(self.passes) + 2 * int(self.passes[0].mass_first) + int(self.gather) + 1
                + int(self.draw))


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _digits(widths: tuple[int, ...], search: int, weighted: bool, gather: bool = False) -> list[Pass]:
    out, below = [], 32
    for bits in widths:
        below -= bits
        out.append(Pass(search, bits, below, weighted and below > 0, gather=gather and below == 0))
    return out


def launch_plan(batch: int, vocab: int, *, top_k: bool = False, top_p: bool = False, min_p: bool = False,
                top_k_bound: int | None = None, sample: bool = True, device_sms: int = 132,
                interpreter: bool = False) -> SamplingPlan:
    """The launch plan for ``batch`` rows of ``vocab`` logits.

    Parameters
    ----------
    batch, vocab : int
        The logits' shape.
    top_k, top_p, min_p : bool
        Whether the filter may be on for some row (a per-row tensor counts as on; the kernels still treat
        each row by its own values).
    top_k_bound : int | None
        Known on the host (a Python-number ``top_k``): every row has top-k on with ``k <= top_k_bound``. At most
        ``K_MAX``, top-p needs no mass passes (3 reads with top-k). None: unknown (a per-row tensor may hold any
        k, or none), so the mass passes are launched for the rows that need them.
    sample : bool
        Whether a token is drawn (else only the thresholds are computed).
    device_sms : int
        Streaming multiprocessors (compute units) of the device: the grid aims at ``PROGRAMS_PER_SM`` programs
        per SM, splitting rows when the batch alone cannot fill it.
    interpreter : bool
        Triton's CPU interpreter runs programs one after another: many rows per program, small blocks.
    """
    if batch < 0 or not 1 <= vocab <= MAX_VOCAB:
        raise ValueError(f"need batch >= 0 and 1 <= vocab <= {MAX_VOCAB}, got {batch} and {vocab}")
    if top_k_bound is not None and (not top_k or top_k_bound < 1):
        raise ValueError(f"top_k_bound={top_k_bound} needs top_k=True and a bound >= 1")
    block = INTERPRETER_BLOCK if interpreter else BLOCK
    gather = top_k and top_p  # some row may have a top-k of at most K_MAX
    mass = top_p and not (top_k_bound is not None and top_k_bound <= K_MAX)  # some row may not
    widest = max(COUNT_DIGITS + (MASS_DIGITS if mass else ()))
    rows = min(INTERPRETER_ROWS, TRITON_MAX_NUMEL >> widest, 1 << max(0, (batch - 1).bit_length())) \
        if interpreter else 1
    row_blocks = max(1, _cdiv(batch, rows))
    want = _cdiv(PROGRAMS_PER_SM * max(1, device_sms), row_blocks)
    splits = max(1, min(max(want, MIN_SPLITS), _cdiv(vocab, block)))
    slice_len = _cdiv(_cdiv(vocab, splits), block) * block
    splits = _cdiv(vocab, slice_len)
    passes = [Pass(1 if top_k else 0, COUNT_DIGITS[0], 32 - COUNT_DIGITS[0], False, mass)]
    if top_k:  # min-p rows with top-k take the count search (its target is at most their key)
        passes += _digits(COUNT_DIGITS, 1, False, gather)[1:]
        if min_p:  # those without top-k take the cut in the first count pass, and only there
            passes[1] = replace(passes[1], cut=True)
    elif min_p:
        passes.append(Pass(1, 0, 0, False, cut=True))
    if mass:
        passes += _digits(MASS_DIGITS, 2, True)[1:]
    return SamplingPlan(batch, vocab, rows, splits, slice_len, block, tuple(passes), sample, gather, min_p,
                        min(MASS_TILE, INTERPRETER_ONE_HOT // (rows << MASS_DIGITS[0])) if interpreter else MASS_TILE)
