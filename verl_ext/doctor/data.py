"""The data files of a config (``data.train_files``, ``data.val_files``): each exists, and a parquet file's
columns, data sources and ground truths suit the scorer that reads them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_ext.doctor.config import _get
from verl_ext.doctor.findings import ERROR, OK, Finding
from verl_ext.doctor.routing import _ground_truth_problem, _verl_knows
from verl_ext.wording import counted

#: Rows read from the start of each parquet data file (only its data source and reward_model columns).
DATA_ROWS = 4096
#: Code ground truths parsed per data source and file (they can be megabytes each).
CODE_ROWS = 256


def _rows_text(n: int) -> str:
    return f"{n} row{'s' * (n != 1)}"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class _Tally:
    """Rows with one problem: how many, the first one (index and value), and what the problem does."""

    why: str
    count: int = 0
    first: int = 0
    example: Any = None

    def add(self, row: int, value: Any) -> None:
        if self.count == 0:
            self.first, self.example = row, value
        self.count += 1


def head_rows(path: Path, columns: Sequence[str], limit: int) -> Iterator[dict[str, Any]]:
    """The first ``limit`` rows of a parquet file, only ``columns`` read."""
    import pyarrow.parquet as pq

    done = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=min(limit, 1024), columns=list(columns)):
        for row in batch.to_pylist():
            yield row
            done += 1
            if done >= limit:
                return


def _check_parquet(key: str, path: Path, source_key: str, prompt_key: str, route: Callable[[str], str],
                   warn_unscored: bool) -> list[Finding]:
    """The columns verl reads, and the first :data:`DATA_ROWS` rows' data sources and ground truths."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path)
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError
        return [Finding(ERROR, key, f"{path}: not a readable parquet file: {e}")]
    total = meta.metadata.num_rows
    names = meta.schema_arrow.names
    missing = [c for c in (prompt_key, source_key, "reward_model") if c not in names]
    found: list[Finding] = []
    if missing:
        found.append(Finding(ERROR, key, f"{path}: no column {', '.join(missing)} (verl reads {prompt_key!r} "
                             f"(data.prompt_key), {source_key!r} (data.reward_fn_key) and reward_model.ground_truth; "
                             f"columns: {', '.join(names)})"))
        if source_key in missing or "reward_model" in missing:
            return found
    rows: dict[str, int] = {}  # per data source
    checked: dict[str, int] = {}  # ground truths checked per data source
    tallies: dict[tuple[str, str], _Tally] = {}  # (data source, problem)
    read = 0
    for i, row in enumerate(head_rows(path, [source_key, "reward_model"], DATA_ROWS)):
        read += 1
        ds, rm = row.get(source_key), row.get("reward_model")
        if not isinstance(ds, str):
            why = f"verl-ext (and verl) choose the scorer by it ({source_key!r}, data.reward_fn_key)"
            tallies.setdefault(("", f"a {source_key} of type {type(ds).__name__}"), _Tally(why)).add(i, ds)
            continue
        rows[ds] = rows.get(ds, 0) + 1
        if not isinstance(rm, dict) or "ground_truth" not in rm:
            why = "verl reads the ground truth from reward_model['ground_truth']"
            tallies.setdefault((ds, "no reward_model.ground_truth"), _Tally(why)).add(i, rm)
            continue
        r = route(ds)
        if r == "code" and checked.get(ds, 0) >= CODE_ROWS:
            continue
        checked[ds] = checked.get(ds, 0) + 1
        problem = _ground_truth_problem(r, ds, rm["ground_truth"])
        if problem is not None:
            tallies.setdefault((ds, problem[0]), _Tally(problem[1])).add(i, rm["ground_truth"])
    for (ds, issue), tally in tallies.items():
        of = read if not ds else checked.get(ds, 0) if issue.startswith("a ground truth") else rows[ds]
        where = f"{path}: {ds}" if ds else str(path)
        found.append(Finding(ERROR, key, f"{where}: {tally.count} of {_rows_text(of)} checked have {issue} "
                             f"(row {tally.first}: {_short(tally.example)}): {tally.why}"))
    if warn_unscored:
        for ds, n in sorted(rows.items()):
            if route(ds) == "" and not _verl_knows(ds):
                # verl's meaning is kept: its default_compute_score raises, and the run stops at the first batch
                # (scoring a whole data source 0 would train on rows nothing can reward): an error here, before
                # any model loads.
                found.append(Finding(ERROR, key, f"{path}: {ds} ({_rows_text(n)}): no scorer knows this data "
                                     "source (verl-ext has no native one, verl's default_compute_score raises "
                                     "NotImplementedError, so the run would stop at its first batch) and no reward "
                                     "function is configured: set reward.custom_reward_function or "
                                     "reward.reward_kwargs.functions"))
    sample = f"the first {read} of {counted(total, 'row')}" if read < total else (
        "its one row" if total == 1 else f"all {total} rows")
    summary = ", ".join(f"{ds} {n} ({route(ds) or 'verl'})" for ds, n in sorted(rows.items()))
    found.append(Finding(OK, key, f"{path}: {sample} read: {summary or 'no rows'}"))
    return found


def data_files(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _check_data(cfg: Any, route: Callable[[str], str], warn_unscored: bool) -> list[Finding]:
    """``data.train_files`` / ``data.val_files``: each exists; a parquet file's first rows are read (its data
    source and reward_model columns) when pyarrow is installed."""
    found: list[Finding] = []
    source_key = str(_get(cfg, "data.reward_fn_key", found) or "data_source")
    prompt_key = str(_get(cfg, "data.prompt_key", found) or "prompt")
    try:
        import pyarrow.parquet  # noqa: F401 - only whether it imports
        has_pyarrow = True
    except ImportError:
        has_pyarrow = False
    for name in ("train_files", "val_files"):
        key = f"data.{name}"
        value = _get(cfg, key, found)
        files = data_files(value)
        if files is None:
            found.append(Finding(ERROR, key, f"expected a path or a list of paths, got {_short(value)}"))
            continue
        for i, file in enumerate(files):
            where = key if isinstance(value, str) else f"{key}[{i}]"
            if "://" in file:
                found.append(Finding(OK, where, f"{file}: remote, not checked"))
                continue
            path = Path(file).expanduser()
            if path.is_dir():
                found.append(Finding(ERROR, where, f"{path} is a directory: verl reads data files (list each one)"))
            elif not path.is_file():
                found.append(Finding(ERROR, where, f"no such file: {path}"))
            elif path.suffix != ".parquet":
                found.append(Finding(OK, where, f"{path} exists (not parquet: its rows are not checked)"))
            elif not has_pyarrow:
                found.append(Finding(OK, where, f"{path} exists (pyarrow is not installed: its rows are not checked)"))
            else:
                found.extend(_check_parquet(where, path, source_key, prompt_key, route, warn_unscored))
    return found
