"""Launch plan of the Triton sampler: how a batch is split across programs and how many times each logit is read.

Every pass that reads the logits runs one program per (row block, vocabulary split); a small per-row combine
follows each pass. The passes depend only on which filters *may* be on (known on the host without reading any
tensor), never on the data:

* ``stats``: max, sum of exp and NaN check per split (always). With top-k or min-p it also counts the first
  digit of the order-preserving fp32 keys for the first threshold search.
* search 1 (top-k and min-p, ``tau1 = max(k-th largest z, t_min)``): counts of the next key digits inside the
  chosen bucket; digits of ``COUNT_DIGITS`` bits, the last one per key, so ``tau1`` and the mass at or above it
  are exact.
* search 2 (top-p over what search 1 kept): exp-mass histograms of ``MASS_DIGITS``-bit digits, the last digit
  per key, so the threshold is exact. The first digit is summed inside ``stats`` (relative to each split's
  running max, rescaled by the combine), and chosen once search 1 has said what top-p renormalises over.
* the draw re-reads one split per row: the combine of the last pass knows each split's kept mass, so it knows
  which split holds the sampled token.
"""

from __future__ import annotations

from dataclasses import dataclass

# Digits of the 32-bit key. Search 1 counts with hardware histograms (cheap per bin), so its digits are wide;
# the last digit is per key and its per-split counts are kept for the draw, hence 10 bits. Search 2 also needs
# exp-mass per bucket, summed per bin, so its digits are narrow.
COUNT_DIGITS: tuple[int, ...] = (11, 11, 10)
MASS_DIGITS: tuple[int, ...] = (8, 8, 8, 8)
# Programs per pass the plan aims for, per SM: enough to hide latency, few enough that each program streams a
# contiguous slice of at least one block.
PROGRAMS_PER_SM = 4
# Splits per row at any batch size (vocabulary allowing): the draw re-reads one split, so at most a quarter of
# a read, and a large batch still gets several programs per row.
MIN_SPLITS = 4
BLOCK = 512  # elements per load on a GPU; a split is a whole number of blocks
INTERPRETER_BLOCK = 128  # the interpreter runs programs one after another: small tiles, many rows each
INTERPRETER_ROWS = 64
# Elements per load in passes that sum exp-mass per bucket: each sums a [MASS_TILE, 2^bits] one-hot tile, which
# must stay in registers (32 x 256 fp32 is 32 per lane at 8 warps).
MASS_TILE = 32


@dataclass(frozen=True)
class Pass:
    """One launch that reads the logits: which search it serves (0: statistics only), the digit's width and the
    number of key bits below it, whether it sums exp-mass per bucket, and (statistics pass) whether it also sums
    the exp-mass of search 2's first digit."""

    search: int
    bits: int
    shift: int
    weighted: bool
    mass_first: bool = False

    @property
    def final(self) -> bool:
        """The digit is the key's last: one bucket per key value."""
        return self.shift == 0


@dataclass(frozen=True)
class SamplingPlan:
    """What the Triton sampler launches for a ``[batch, vocab]`` call.

    ``passes`` read every logit once each; the draw then reads one split per row. ``grid`` is the grid of every
    pass: (row blocks, splits)."""

    batch: int
    vocab: int
    rows_per_program: int
    splits: int
    slice_len: int
    block: int
    passes: tuple[Pass, ...]
    draw: bool

    @property
    def grid(self) -> tuple[int, int]:
        return (_cdiv(self.batch, self.rows_per_program), self.splits)

    @property
    def programs(self) -> int:
        """Programs of each pass over the logits."""
        return self.grid[0] * self.grid[1]

    @property
    def reads_per_logit(self) -> float:
        """Full reads of the logits (one per pass) plus the draw's re-read of one split in ``splits``."""
        return len(self.passes) + (1 / self.splits if self.draw else 0.0)

    @property
    def launches(self) -> int:
        """Kernel launches: each pass and its combine, the setup and first-digit combine of search 2, the final
        combine, and with a draw the splits' kept masses and the draw."""
        return 2 * len(self.passes) + 2 * int(self.passes[0].mass_first) + 1 + 2 * int(self.draw)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _digits(widths: tuple[int, ...], search: int, weighted: bool) -> list[Pass]:
    out, below = [], 32
    for bits in widths:
        below -= bits
        out.append(Pass(search, bits, below, weighted and below > 0))
    return out


def launch_plan(batch: int, vocab: int, *, top_k: bool = False, top_p: bool = False, min_p: bool = False,
                sample: bool = True, device_sms: int = 132, interpreter: bool = False) -> SamplingPlan:
    """The launch plan for ``batch`` rows of ``vocab`` logits.

    Parameters
    ----------
    batch, vocab : int
        The logits' shape.
    top_k, top_p, min_p : bool
        Whether the filter may be on for some row (a per-row tensor counts as on; the kernels still treat
        each row by its own values).
    sample : bool
        Whether a token is drawn (else only the thresholds are computed).
    device_sms : int
        Streaming multiprocessors (compute units) of the device: the grid aims at ``PROGRAMS_PER_SM`` programs
        per SM, splitting rows when the batch alone cannot fill it.
    interpreter : bool
        Triton's CPU interpreter runs programs one after another: many rows per program, small blocks.
    """
    if batch < 0 or vocab < 1:
        raise ValueError(f"need batch >= 0 and vocab >= 1, got {batch} and {vocab}")
    block = INTERPRETER_BLOCK if interpreter else BLOCK
    rows = min(INTERPRETER_ROWS, 1 << max(0, (batch - 1).bit_length())) if interpreter else 1
    row_blocks = max(1, _cdiv(batch, rows))
    want = _cdiv(PROGRAMS_PER_SM * max(1, device_sms), row_blocks)
    splits = max(1, min(max(want, MIN_SPLITS), _cdiv(vocab, block)))
    slice_len = _cdiv(_cdiv(vocab, splits), block) * block
    splits = _cdiv(vocab, slice_len)
    passes = [Pass(1 if (top_k or min_p) else 0, COUNT_DIGITS[0], 32 - COUNT_DIGITS[0], False, top_p)]
    if top_k or min_p:
        passes += _digits(COUNT_DIGITS, 1, False)[1:]
    if top_p:
        passes += _digits(MASS_DIGITS, 2, True)[1:]
    return SamplingPlan(batch, vocab, rows, splits, slice_len, block, tuple(passes), sample)
