"""``privlearn``: the command line for data custodians and auditors.

Each capability is one subcommand, declared in one place with :func:`command` (its name, help, examples, arguments
and the function that runs it); ``main`` builds the parser from that table, so adding a capability adds one
decorated function and nothing else.

Conventions shared by every subcommand:

* Input CSV files have a header row; columns are named on the command line.  A numeric column of a NON-private
  command must hold finite numbers (an empty cell, NaN, inf or a word is an error naming the column, the line and
  the value).  A PRIVATE command (``rados``, ``causal``, ``boost``) never refuses one cell (issue 25: that let one
  record's value decide the exit code): :func:`private_numeric` reads inf / 1e999 as numbers, which the release
  clamps to its public domain (the bounds, the clip ball), and an empty cell, NaN or a word as NaN, which every
  private release reads as the centre of its domain (the middle of the public bounds); the boolean column of
  ``rados --sensitive`` is read as +1 where the value is > 0 and -1 elsewhere (-1/1 and 0/1 codings alike).
* Public bounds (``--bounds LO:HI|COL=LO:HI|FILE.json``, repeatable) and the levels of text columns
  (``--categories FILE``, a codebook) are given on the command line and never read from the data: a scaler, a level
  list or a clipping range fit on private data would itself leak (docs/api/tutorials/preprocessing.rst).  The
  learners scale numeric features with ``fast.preprocessing.PublicScaler`` and one-hot encode text features with
  ``PublicOneHotEncoder`` (:func:`preprocessing_spec`, :func:`apply_preprocessing`); the preprocessing is stored in
  the rados file and the model, and ``predict`` / ``score`` apply it identically.  A feature with neither is a usage
  error, decided from the header and the flags only.  ``--diagnose`` prints the custodian's NON-private shares of
  clamped / unknown rows (standard error, never the record); the non-private commands warn above 5 % by default.
* Outputs are written atomically once everything has succeeded: nothing is written on failure.  An output path that
  names an input file (the same path after resolving symbolic links, or a hard link to it) is refused with exit 2
  before anything is read: ``--out data.csv`` never overwrites the raw data.
* CSV outputs are written by the ``csv`` module (a field holding a comma, a quote or a line break is quoted) and are
  safe to open in a spreadsheet: a TEXT cell (a header name, a label, a level; not a number) that starts with
  ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or ``'`` gets one leading ``'`` (:func:`neutralise_cell`), so a
  spreadsheet shows it as text instead of evaluating a formula; :func:`restore_cell` removes it (the rule is its
  own exact inverse).  Numbers (``-1.5``, ``+2e3``) are written as they are.  The metadata of a rados file is one
  quoted cell starting with ``#``; JSON files (models) hold the names exactly.
* Labels of a PRIVATE command (``rados``, ``boost``, ``impact --epsilon``) are public input: ``--classes NEG,POS``
  declares them (:func:`declared_labels`).  A label equal to POS is +1 and EVERY other cell (NEG, an empty cell, any
  other value) is -1, so nothing the command does (its success, messages, exit code, output metadata) depends on
  which labels the file holds: reading the label set from the file let one record decide whether the command
  succeeded (one row with the only positive label: exit 0; that label replaced: exit 3) and released the label set.
* Private noise comes from the operating system's entropy; ``--seed`` seeds only the non-private randomness (which
  rows enter a rado, the train/test split).
* Every command that writes a file also writes a machine-readable RECORD of the run beside its output,
  ``<output>.json`` (``--record PATH`` chooses another path; ``causal`` and ``score``, which write no file, write one
  only with ``--record``): the command line, the privlearn version and git commit (null outside a checkout), the
  public parameters, ``privacy_spent`` (epsilon, delta, rho, neighbouring, accounting; null where nothing private
  was released) and the files written (:func:`write_record`).  The record path is refused like an output.
* What the CLI writes it can use: ``predict`` / ``score`` apply a model of ``fit-rados --out`` or ``boost --out``
  (``format`` "privlearn-model/1", :func:`read_model`: the fit's public scaling applied, features looked up by name,
  the declared labels written); ``impact --tables`` writes the released coding tables (levels, codes, novel code;
  never counts) and ``impact-apply`` codes new data with them.  A model or tables file of another format or kind is
  refused with exit 3.
* Progress bars (tqdm) go to standard error, so standard output carries only the results: by default they are
  shown only when standard error is a terminal; ``--progress`` shows them always (a log file), ``--quiet`` never.
* Exit codes: see :data:`EXIT_CODES`.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import inspect
import io
import json
import math
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["main", "build_parser", "command", "Command", "COMMANDS", "EXIT_CODES", "DataError", "UsageError", "read_csv",
           "numeric", "private_numeric", "labels_pm1", "parse_classes", "declared_labels", "parse_bounds",
           "feature_bounds", "scale_to_unit", "read_rados", "write_atomic", "write_csv", "neutralise_cell",
           "restore_cell", "check_outputs", "progress_bar", "plan_record", "write_record", "spent_record",
           "read_model", "model_scores", "boost_estimator", "impact_tables", "read_tables", "apply_tables",
           "RECORD_FORMAT", "MODEL_FORMAT", "TABLES_FORMAT", "PREPROCESSING_FORMAT", "parse_bounds_options",
           "read_categories", "preprocessing_spec", "apply_preprocessing", "preprocessing_diagnostics",
           "print_diagnostics", "NOT_PRIVATE", "DIAGNOSE_THRESHOLD"]

#: exit codes of every subcommand
EXIT_CODES = {
    0: "success",
    1: "the report found a failing check or a broken link (warmup: an entry point failed or a kernel stayed "
       "uncached)",
    2: "usage error (bad or missing option, e.g. no --classes for a private command; an output path naming an input "
       "file; argparse's convention)",
    3: "bad input data (missing column, non-numeric value, NaN / inf / empty cell, unreadable file; a model or "
       "coding-tables file of an unknown format or kind, or damaged; without --classes (non-private impact coding "
       "only): labels not two classes)",
    4: "the request was refused by the library (e.g. a budget too small for the data size, an empty DP-Feat window)",
    5: "a package this command needs is not installed",
}
EXIT_OK, EXIT_REPORT_FAILED, EXIT_USAGE, EXIT_DATA, EXIT_REFUSED, EXIT_MISSING = 0, 1, 2, 3, 4, 5


class DataError(Exception):
    """A problem with an input file (exit code 3)."""


class UsageError(Exception):
    """An option combination argparse cannot check (exit code 2)."""


@dataclass
class Command:
    name: str
    help: str
    examples: list[str]
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    description: str = ""
    progress: bool = False


#: the subcommands, in the order --help lists them
COMMANDS: dict[str, Command] = {}


def command(name: str, *, help: str, examples: list[str], arguments: Callable[[argparse.ArgumentParser], None],
            progress: bool = False):
    """Register ``run(args) -> exit code`` as the subcommand ``name``: the one place a capability is added.

    Parameters
    ----------
    name : str
        The subcommand (``privlearn NAME``).
    help : str
        One line for ``privlearn --help``.
    examples : list of str
        Command lines shown under "examples:" in ``privlearn NAME --help``.
    arguments : callable
        ``arguments(parser)`` adds the subcommand's options to its ``argparse`` parser.
    progress : bool, default=False
        The command shows progress bars on long work: it gets ``--progress`` / ``--quiet`` (``args.progress`` is
        ``"auto"``, ``"on"`` or ``"off"``; pass ``args`` to :func:`progress_bar`).

    Returns
    -------
    callable
        A decorator; the decorated ``run(args)`` is stored in :data:`COMMANDS`, its docstring (cleaned with
        :func:`inspect.cleandoc`: continuation lines dedented) as the long description.

    Examples
    --------
    >>> @command("hello", help="say hello", examples=["privlearn hello"], arguments=lambda p: None)
    ... def _hello(args):
    ...     'Print hello.'
    ...     return 0
    >>> "hello" in COMMANDS
    True
    >>> del COMMANDS["hello"]
    """
    def register(run):
        COMMANDS[name] = Command(name, help, examples, arguments, run, inspect.cleandoc(run.__doc__ or ""), progress)
        return run
    return register


# --------------------------------------------------------------------------- progress bars

#: ``args.progress`` (``--progress`` / ``--quiet``) to tqdm's ``disable``: None lets tqdm show the bar only when
#: standard error is a terminal.  True and False (the arguments :func:`read_csv` took before) mean auto and off.
_DISABLE = {"auto": None, True: None, "on": False, "off": True, False: True}


def _progress_mode(progress) -> str | bool:
    """``args`` (its ``progress`` attribute, "auto" when absent) or a mode itself."""
    if isinstance(progress, argparse.Namespace):
        progress = getattr(progress, "progress", "auto")
    if progress not in _DISABLE:
        raise ValueError(f"progress must be 'auto', 'on', 'off', True or False, got {progress!r}")
    return progress


def progress_bar(progress, total: float | None, desc: str, **kwargs):
    """A tqdm bar on standard error (never standard output, which carries the results), as ``--progress`` asks.

    Parameters
    ----------
    progress : argparse.Namespace or {"auto", "on", "off"} or bool
        The parsed arguments (their ``progress``: "auto" when the command has no ``--progress`` option) or the mode:
        "auto" (or True) shows the bar only when standard error is a terminal, "on" always, "off" (or False) never.
    total : float or None
        The number of steps (None: a counter).
    desc : str
        The label before the bar.
    **kwargs
        Passed to ``tqdm`` (e.g. ``unit``).

    Returns
    -------
    tqdm.tqdm
        Transient (``leave=False``): it is erased when closed.

    Raises
    ------
    ValueError
        An unknown mode.

    Examples
    --------
    >>> import io, contextlib
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     bar = progress_bar("on", 2, "demo")
    ...     _ = bar.update(2)
    ...     bar.close()
    >>> "demo" in err.getvalue(), progress_bar("off", 2, "demo").disable
    (True, True)
    """
    from tqdm.auto import tqdm

    mode = _progress_mode(progress)
    kwargs.setdefault("leave", False)
    return tqdm(total=total, desc=desc, file=sys.stderr, disable=_DISABLE[mode], **kwargs)


def _shows_progress(progress) -> bool:
    """Whether :func:`progress_bar` would show a bar (tqdm's auto mode: standard error is a terminal)."""
    disable = _DISABLE[_progress_mode(progress)]
    if disable is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(isatty and isatty())
    return not disable


def _progress_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--progress", dest="progress", action="store_const", const="on", default="auto",
                   help="progress bars on standard error even when it is not a terminal (default: only on a terminal; "
                        "standard output carries the results alone either way)")
    g.add_argument("-q", "--quiet", dest="progress", action="store_const", const="off", help="no progress bars")


class _RoundsToBar(io.TextIOBase):
    """A stdout stand-in during a fit: 'round k/T' lines advance a bar; any other text goes to standard error."""

    def __init__(self, bar):
        self.bar = bar

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        rounds = re.findall(r"round (\d+)/\d+", text)
        if rounds:
            self.bar.update(int(rounds[-1]) - self.bar.n)
        elif text.strip():
            sys.stderr.write(text)
        return len(text)


# --------------------------------------------------------------------------- reading CSV files


def read_csv(path: str, columns: list[str], *, progress=True) -> dict[str, list[str]]:
    """The named columns of a CSV file with a header row, as strings.

    Parameters
    ----------
    path : str
        A UTF-8 CSV file whose first row names the columns (blank lines are skipped).
    columns : list of str
        The columns to read.
    progress : bool or {"auto", "on", "off"} or argparse.Namespace, default=True
        A tqdm bar (bytes read) on standard error, as :func:`progress_bar`: True (or "auto") when standard error is
        a terminal, "on" always, False (or "off") never.

    Returns
    -------
    dict of str to list of str
        Each requested column's cells, stripped, in file order.

    Raises
    ------
    DataError
        No such file, an empty file, a missing or duplicated column (the message lists the columns), a row with the
        wrong number of fields (the message gives the line), no data rows, not UTF-8 text.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{path}: no such file")
    try:
        size = p.stat().st_size
        with p.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            try:
                header = [h.strip() for h in next(reader)]
            except StopIteration:
                raise DataError(f"{path}: the file is empty (a header row naming the columns is needed)") from None
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataError(f"{path}: no column {', '.join(repr(c) for c in missing)}; the columns are "
                                f"{', '.join(repr(h) for h in header)}")
            dupes = sorted({c for c in columns if header.count(c) > 1})
            if dupes:
                raise DataError(f"{path}: column name(s) {dupes} appear more than once in the header")
            index = {c: header.index(c) for c in columns}
            out: dict[str, list[str]] = {c: [] for c in columns}
            bar = progress_bar(progress, size, f"reading {p.name}", unit="B", unit_scale=True)
            for line, row in enumerate(reader, start=2):
                bar.update(sum(len(v) + 1 for v in row))
                if not row or all(not v.strip() for v in row):
                    continue  # blank line
                if len(row) != len(header):
                    raise DataError(f"{path}, line {line}: {len(row)} fields, the header has {len(header)}")
                for c, i in index.items():
                    out[c].append(row[i].strip())
            bar.close()
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not a UTF-8 text file ({exc.reason})") from None
    except csv.Error as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None
    if columns and not out[columns[0]]:
        raise DataError(f"{path}: no data rows after the header")
    return out


def numeric(path: str, name: str, values: list[str]):
    """A column as float64; every value must be a finite number.

    Parameters
    ----------
    path : str
        The file name, for messages.
    name : str
        The column name, for messages.
    values : list of str
        The cells (data row k is line k + 2 of the file).

    Returns
    -------
    numpy.ndarray of shape (len(values),)

    Raises
    ------
    DataError
        An empty cell, a word, NaN or inf: the message names the file, line, column and value.

    Examples
    --------
    >>> numeric("f.csv", "age", ["1", "2.5"]).tolist()
    [1.0, 2.5]
    >>> numeric("f.csv", "age", ["1", "nan"])
    Traceback (most recent call last):
    ...
    fast.cli.DataError: f.csv, line 3, column 'age': 'nan' is not a finite number (NaN and inf are refused: impute with a PUBLIC rule first, see the preprocessing tutorial)
    """
    import numpy as np

    arr = np.empty(len(values))
    for k, v in enumerate(values):
        if v == "":
            raise DataError(f"{path}, line {k + 2}, column {name!r}: empty cell (missing values are refused: impute "
                            "with a PUBLIC rule first, see the preprocessing tutorial)")
        try:
            x = float(v)
        except ValueError:
            raise DataError(f"{path}, line {k + 2}, column {name!r}: {v!r} is not a number") from None
        if not math.isfinite(x):
            raise DataError(f"{path}, line {k + 2}, column {name!r}: {v!r} is not a finite number (NaN and inf are "
                            "refused: impute with a PUBLIC rule first, see the preprocessing tutorial)")
        arr[k] = x
    return arr


def private_numeric(values: list[str]):
    """A numeric column of a PRIVATE command as float64, never refused one cell at a time (issue 25).

    Each cell is ``float(cell)`` where Python reads it as a number (``inf``, ``-inf`` and ``1e999`` included: the
    release clamps them to its public domain); an empty cell, ``nan`` or a word is NaN, which every private release
    reads as the centre of its public domain (``spec.privacy_contract.to_domain``).  Nothing here depends on one
    cell's value: no error, message or exit code.

    Parameters
    ----------
    values : list of str
        The cells.

    Returns
    -------
    numpy.ndarray of shape (len(values),)

    Examples
    --------
    >>> private_numeric(["1", "", "inf", "abc", "1e999"]).tolist()
    [1.0, nan, inf, nan, inf]
    """
    import numpy as np

    arr = np.empty(len(values))
    for k, v in enumerate(values):
        try:
            arr[k] = float(v)
        except ValueError:  # empty, a word: the missing bucket (the domain's centre)
            arr[k] = math.nan
    return arr


def labels_pm1(path: str, name: str, values: list[str], positive: str | None):
    """Two-class labels to {-1, +1} (:func:`fast.labels.to_pm1`).

    Parameters
    ----------
    path, name : str
        File and column, for messages.
    values : list of str
        The label cells.
    positive : str or None
        The label that becomes +1; None is accepted for -1/1, -1/+1, 0/1, false/true, no/yes.

    Returns
    -------
    y : numpy.ndarray of int8 in {-1, +1}
    classes : list of str
        ``[negative, positive]``.

    Raises
    ------
    DataError
        An empty label, not exactly two values, or two values with no evident positive class and no ``positive``.

    Examples
    --------
    >>> y, classes = labels_pm1("f.csv", "outcome", ["no", "yes", "yes"], None)
    >>> y.tolist(), classes
    ([-1, 1, 1], ['no', 'yes'])
    """
    from fast.labels import to_pm1

    if any(v == "" for v in values):
        k = values.index("")
        raise DataError(f"{path}, line {k + 2}, column {name!r}: empty label")
    classes = sorted(set(values))
    if positive is None:
        for neg, pos in ((("-1", "1"), ("-1", "+1"), ("0", "1"), ("false", "true"), ("no", "yes"))):
            if set(v.lower() for v in classes) == {neg, pos}:
                positive = next(v for v in classes if v.lower() == pos)
                break
    if len(classes) != 2:
        raise DataError(f"{path}, column {name!r}: labels must take exactly two values, found {len(classes)}"
                        f"{': ' + ', '.join(classes[:6]) if len(classes) <= 6 else ''} (fast.labels.to_pm1 maps two "
                        "classes to -1/+1; use --positive to say which is +1)")
    if positive is None:
        raise DataError(f"{path}, column {name!r}: say which label is +1 with --positive (one of {classes})")
    if positive not in classes:
        raise DataError(f"--positive {positive!r} is not a label of column {name!r} (labels: {classes})")
    y, cls = to_pm1(values, positive=positive)
    return y, [str(c) for c in cls]


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def parse_classes(text: str, what: str = "--classes") -> tuple[str, str]:
    """``"NEG,POS"`` to ``(negative, positive)``: the PUBLIC label set of a private command.

    Parameters
    ----------
    text : str
        The option's value, read as one CSV record (quote a label holding a comma: ``'"a,b",c'``).
    what : str
        The option's name, for messages.

    Returns
    -------
    tuple of str
        ``(negative, positive)``, stripped.

    Raises
    ------
    UsageError
        Not two non-empty labels, or two labels that are the same (as strings, or as numbers: ``1`` and ``1.0``).

    Examples
    --------
    >>> parse_classes("no,yes")
    ('no', 'yes')
    >>> parse_classes('0, "a,b"')
    ('0', 'a,b')
    """
    try:
        pair = tuple(_csv_list(text, what))
    except UsageError:
        pair = ()
    if len(pair) != 2 or not all(pair):
        raise UsageError(f"{what}: expected NEG,POS (the two PUBLIC labels, negative first; quote a label holding a "
                         f"comma), got {text!r}")
    if _label_key(pair[0]) == _label_key(pair[1]):
        raise UsageError(f"{what}: the two labels must differ, got {text!r}")
    return pair


def _csv_list(text: str, what: str) -> list[str]:
    """An option's comma-separated list, read as one CSV record (a name holding a comma, a quote or a line break is
    quoted: ``'a,"b,c"'``), each item stripped."""
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), skipinitialspace=True))
    except csv.Error as exc:
        raise UsageError(f"{what}: not a comma-separated list ({exc}): {text!r}") from None
    if len(records) > 1:
        raise UsageError(f"{what}: an unquoted line break in {text!r} (quote a name holding one)")
    return [f.strip() for f in (records[0] if records else [])]


def _label_key(text: str):
    """What a label cell is compared by: its number when it is written as a number (1, 1.0, +1 alike), else its text."""
    return float(text) if _NUMBER.fullmatch(text) else text


def declared_labels(values: list[str], classes: tuple[str, str]):
    """Label cells to {-1, +1} against the DECLARED pair: +1 where a cell equals POS, -1 for EVERY other cell.

    A cell equals POS when both are written as numbers with the same value (``1``, ``1.0`` and ``+1`` alike) or,
    otherwise, when the texts are equal (case-sensitive; cells are stripped).  NEG, an empty cell and any other value
    are -1: "anything that is not the positive class is negative".  No error, message or exit code depends on which
    labels occur (issue 25), and the work is one comparison per cell.

    Parameters
    ----------
    values : list of str
        The label cells.
    classes : (str, str)
        ``(negative, positive)`` from :func:`parse_classes`.

    Returns
    -------
    numpy.ndarray of int8 in {-1, +1}

    Examples
    --------
    >>> declared_labels(["yes", "no", "", "maybe", "yes"], ("no", "yes")).tolist()
    [1, -1, -1, -1, 1]
    >>> declared_labels(["1", "1.0", "+1", "0", "one"], ("0", "1")).tolist()
    [1, 1, 1, -1, -1]
    """
    import numpy as np

    positive = _label_key(classes[1])
    if isinstance(positive, float):
        hits = [bool(_NUMBER.fullmatch(v)) and float(v) == positive for v in values]
    else:
        hits = [v == positive for v in values]
    return np.where(np.array(hits, dtype=bool), 1, -1).astype(np.int8)


def parse_bounds(text: str, what: str) -> tuple[float, float]:
    """``"LO:HI"`` to ``(lo, hi)`` with finite lo < hi.

    Parameters
    ----------
    text : str
        The option's value.
    what : str
        The option's name, for messages.

    Returns
    -------
    tuple of float

    Raises
    ------
    UsageError
        Not two numbers separated by ':', or not finite with LO < HI.

    Examples
    --------
    >>> parse_bounds("-4:4", "--bounds")
    (-4.0, 4.0)
    """
    try:
        lo, hi = (float(t) for t in text.split(":"))
    except ValueError:
        raise UsageError(f"{what}: expected LO:HI (two numbers), got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise UsageError(f"{what}: need finite LO < HI, got {text!r}")
    return lo, hi


def scale_to_unit(X, bounds: list[tuple[float, float]]):
    """x -> clip((2x - lo - hi)/(hi - lo), -1, 1) per column, with PUBLIC bounds: a data-independent map.

    Parameters
    ----------
    X : numpy.ndarray of shape (m, d)
    bounds : list of (lo, hi)
        One public range per column (never computed from X: that would leak, see the preprocessing tutorial).

    Returns
    -------
    numpy.ndarray of shape (m, d)
        Values in [-1, 1]; values outside the bounds are clipped.

    Examples
    --------
    >>> import numpy as np
    >>> scale_to_unit(np.array([[0.0], [5.0], [12.0]]), [(0.0, 10.0)]).ravel().tolist()
    [-1.0, 0.0, 1.0]
    """
    import numpy as np

    lo = np.array([b[0] for b in bounds])
    hi = np.array([b[1] for b in bounds])
    with np.errstate(over="ignore"):  # a private cell at 1e308 overflows 2x to inf, which clips to 1: no warning
        return np.clip((2.0 * X - lo - hi) / (hi - lo), -1.0, 1.0)


def feature_bounds(features: list[str], default: str | None, per_column: list[str]) -> list[tuple[float, float]]:
    """The public range of every feature from ``--bounds LO:HI`` (all) and ``--bound COL=LO:HI`` (one, wins).

    Parameters
    ----------
    features : list of str
    default : str or None
        The ``--bounds`` value.
    per_column : list of str or None
        The ``--bound`` values.

    Returns
    -------
    list of (float, float)
        One range per feature, in order.

    Raises
    ------
    UsageError
        A feature with no range, a malformed range, or ``--bound`` naming a column that is not a feature.
    """
    table = {}
    for item in per_column or []:
        if "=" not in item:
            raise UsageError(f"--bound: expected COL=LO:HI, got {item!r}")
        col, rng = item.split("=", 1)
        if col not in features:
            raise UsageError(f"--bound {item!r}: {col!r} is not a feature column ({', '.join(features)})")
        table[col] = parse_bounds(rng, f"--bound {col}")
    base = parse_bounds(default, "--bounds") if default else None
    out = []
    for f in features:
        if f in table:
            out.append(table[f])
        elif base is not None:
            out.append(base)
        else:
            raise UsageError(f"feature {f!r} has no public bound: give --bounds LO:HI (all features) or --bound "
                             f"{f}=LO:HI. Bounds must be public knowledge (a data dictionary, a physical range), never "
                             "computed from the private data.")
    return out


# --------------------------------------------------------------------------- public preprocessing (--bounds, --categories)

#: the ``format`` of the public preprocessing a rados file or a model records (``preprocessing``)
PREPROCESSING_FORMAT = "privlearn-preprocessing/1"
#: the share of rows above which a NON-private command warns that the declared domain clipped or bucketed a column
DIAGNOSE_THRESHOLD = 0.05
#: the label of every custodian diagnostic (``--diagnose``): it reads the data and is not covered by any guarantee
NOT_PRIVATE = "NOT private: for the data custodian; do not publish"


def _bounds_arguments(p: argparse.ArgumentParser, what: str) -> None:
    """``--bounds`` (repeatable: LO:HI for every numeric feature, COL=LO:HI for one, or FILE.json), ``--bound``
    (the older COL=LO:HI spelling), ``--categories FILE`` and ``--diagnose``: the public preprocessing of a learner."""
    p.add_argument("--bounds", action="append", metavar="LO:HI|COL=LO:HI|FILE.json",
                   help=f"PUBLIC range of the numeric features, never read from the data (repeatable): LO:HI for every "
                        f"feature not named otherwise, COL=LO:HI for one, or a JSON file {{\"COL\": [LO, HI], ...}}; "
                        f"{what}. Values outside are clamped; an empty cell or a word is read as the middle")
    p.add_argument("--bound", action="append", metavar="COL=LO:HI", help="public range of one feature (as --bounds "
                   "COL=LO:HI; repeatable)")
    p.add_argument("--categories", metavar="FILE",
                   help="the PUBLIC levels of the text (categorical) feature columns, from a codebook, never from the "
                        "data: a JSON object {\"COL\": [\"level\", ...], ...} (null: the empty cell as a level) or a CSV "
                        "file with the header column,level and one row per level. Each declared column is one-hot "
                        "encoded (fast.preprocessing.PublicOneHotEncoder): a value that is no declared level gives an "
                        "all-zero block, never an error. Every feature not declared here is numeric and needs a "
                        "--bounds range")
    p.add_argument("--diagnose", action="store_true",
                   help=f"print the custodian's diagnostics to standard error: the share of rows each declared bound "
                        f"clamped and each level list missed, per column (fast.preprocessing.clipping_report). They "
                        f"read the data exactly and are {NOT_PRIVATE}; never in the record. Without it this private "
                        f"command prints nothing that depends on the data")


def _read_bounds_file(path: str) -> dict[str, tuple[float, float]]:
    obj = _load_json(path, "bounds file")
    if not isinstance(obj, dict):
        raise DataError(f"{path}: a bounds file is a JSON object {{\"COL\": [LO, HI], ...}}")
    out = {}
    for col, pair in obj.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, (int, float)) and
                                                                 not isinstance(v, bool) for v in pair)):
            raise DataError(f"{path}: column {col!r}: expected [LO, HI] (two numbers), got {pair!r}")
        lo, hi = float(pair[0]), float(pair[1])
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise DataError(f"{path}: column {col!r}: need finite LO < HI, got {pair!r}")
        out[str(col)] = (lo, hi)
    return out


def parse_bounds_options(values, per_column=None) -> tuple[tuple[float, float] | None, dict[str, tuple[float, float]]]:
    """The ``--bounds`` / ``--bound`` values as (the range of every feature not named, {column: range}).

    Parameters
    ----------
    values : list of str or None
        ``--bounds`` values: ``LO:HI`` (at most one), ``COL=LO:HI`` or the path of a JSON file ``{"COL": [LO, HI]}``
        (a value naming an existing file or ending in ``.json``).
    per_column : list of str or None
        ``--bound COL=LO:HI`` values.

    Returns
    -------
    default : (float, float) or None
    table : dict of str to (float, float)
        Later values win.

    Raises
    ------
    UsageError
        A malformed value, two LO:HI defaults, or COL=LO:HI with a bad range.
    DataError
        A bounds file that is missing or not a JSON object of [LO, HI] pairs.

    Examples
    --------
    >>> parse_bounds_options(["0:1", "age=18:100"], ["income=0:5e5"])
    ((0.0, 1.0), {'age': (18.0, 100.0), 'income': (0.0, 500000.0)})
    """
    default, table = None, {}
    for item in values or []:
        col, sep, rng = item.rpartition("=")
        if sep and col and ":" in rng and not Path(item).is_file():
            table[col] = parse_bounds(rng, f"--bounds {col}")
        elif item.endswith(".json") or Path(item).is_file():
            table.update(_read_bounds_file(item))
        else:
            if default is not None:
                raise UsageError(f"--bounds: two ranges for every feature ({default[0]:g}:{default[1]:g} and {item}); "
                                 "name the column of one (COL=LO:HI)")
            default = parse_bounds(item, "--bounds")
    for item in per_column or []:
        if "=" not in item:
            raise UsageError(f"--bound: expected COL=LO:HI, got {item!r}")
        col, rng = item.rsplit("=", 1)
        table[col] = parse_bounds(rng, f"--bound {col}")
    return default, table


def read_categories(path: str) -> dict[str, list]:
    """The public codebook of ``--categories FILE``: {column: [levels]}.

    Parameters
    ----------
    path : str
        A JSON object ``{"COL": ["a", "b", ...]}`` (levels are strings; null declares the empty cell as a level), or
        a CSV file whose header is ``column,level`` with one row per level (an empty level cell declares the empty
        cell).

    Returns
    -------
    dict of str to list
        Levels as strings, None for the empty cell, in the declared order.

    Raises
    ------
    DataError
        No such file, unreadable, another layout, a column with no level or a level listed twice.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{path}: no such file (--categories)")
    out: dict[str, list] = {}
    if p.suffix.lower() == ".json":
        obj = _load_json(path, "categories file")
        if not isinstance(obj, dict):
            raise DataError(f"{path}: a categories file is a JSON object {{\"COL\": [\"level\", ...], ...}}")
        for col, levels in obj.items():
            if not (isinstance(levels, list) and all(v is None or isinstance(v, (str, int, float)) and
                                                     not isinstance(v, bool) for v in levels)):
                raise DataError(f"{path}: column {col!r}: expected a list of levels (strings), got {levels!r}")
            out[str(col)] = [None if v is None else str(v).strip() for v in levels]
    else:
        try:
            with p.open(newline="", encoding="utf-8-sig") as fh:
                rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise DataError(f"{path}: not a readable CSV file ({exc})") from None
        if not rows or [c.strip().lower() for c in rows[0]] != ["column", "level"]:
            raise DataError(f"{path}: a categories CSV file has the header column,level (one row per level), or use "
                            "a JSON object {\"COL\": [levels]}")
        for line, r in enumerate(rows[1:], start=2):
            if len(r) != 2:
                raise DataError(f"{path}, line {line}: {len(r)} fields, expected column,level")
            col, level = r[0].strip(), r[1].strip()
            out.setdefault(col, []).append(level if level != "" else None)
    for col, levels in out.items():
        if not levels:
            raise DataError(f"{path}: column {col!r} declares no level")
        if len(set(levels)) != len(levels):
            raise DataError(f"{path}: column {col!r} lists a level twice")
    return out


def preprocessing_spec(features: list[str], *, header: list[str], bounds=None, categories=None,
                       scale: bool = True, need_bounds: bool = True) -> dict:
    """The public preprocessing of a learner's features, from the header and the flags only (never a value).

    A feature declared in ``categories`` is one-hot encoded against its levels (output features ``COL=level``); every
    other feature is numeric: with ``scale`` it is mapped from its declared range to [-1, 1] (``PublicScaler``),
    else kept in its units (its range is then the learner's own domain, e.g. the stump grid).

    Parameters
    ----------
    features : list of str
        The feature columns, in order.
    header : list of str
        The CSV header (``categories`` may name only its columns).
    bounds : (default, table) or None
        From :func:`parse_bounds_options`.
    categories : dict or None
        From :func:`read_categories`.
    scale : bool, default=True
        Scale the numeric features to [-1, 1].
    need_bounds : bool, default=True
        Every numeric feature needs a range (else a numeric feature without one is kept raw, unscaled).

    Returns
    -------
    dict
        ``format``, ``columns`` (per input column: ``name``, ``kind`` "numeric" with ``bounds`` [LO, HI] or null and
        ``scaled``, or "categorical" with ``levels``), ``features`` (the output feature names, in order) and
        ``ranges`` (the range of each output feature: [-1, 1] scaled, [0, 1] one-hot, the declared range raw).

    Raises
    ------
    UsageError
        A numeric feature without a range (naming the column and both flags), a range or a codebook naming a column
        that is not in the file, or two output features with one name.  A range or levels of a column of the file
        that is not a feature (the label, in a data dictionary) is ignored.

    Examples
    --------
    >>> spec = preprocessing_spec(["age", "city"], header=["age", "city", "y"], bounds=((0.0, 100.0), {}),
    ...                           categories={"city": ["paris", "lyon"]})
    >>> spec["features"], spec["ranges"]
    (['age', 'city=paris', 'city=lyon'], [[-1.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    """
    default, table = bounds if bounds is not None else (None, {})
    categories = categories or {}
    for col in table:  # a data dictionary may cover more columns (the label, unused ones): those are ignored
        if col not in header:
            raise UsageError(f"--bounds {col}: {col!r} is not a feature column ({', '.join(map(repr, features))})")
    for col in categories:  # a codebook may cover more columns than the features (the label, unused ones)
        if col not in header:
            raise UsageError(f"--categories names the column {col!r}, which is not in the file (columns: "
                             f"{', '.join(repr(h) for h in header)})")
    columns, names, ranges = [], [], []
    for f in features:
        if f in categories:
            if f in table:
                raise UsageError(f"column {f!r} has both a --bounds range and --categories levels: it is either "
                                 "numeric or text")
            levels = categories[f]
            columns.append({"name": f, "kind": "categorical", "levels": levels})
            names += [f"{f}={'' if lv is None else lv}" for lv in levels]
            ranges += [[0.0, 1.0]] * len(levels)
            continue
        rng = table.get(f, default)
        if rng is None and need_bounds:
            raise UsageError(f"feature {f!r} has no public bound and no declared levels: if it is numeric give "
                             f"--bounds {f}=LO:HI (or --bounds LO:HI for every numeric feature); if it holds text, "
                             f"list its levels in --categories FILE. Both must be public knowledge (a data "
                             f"dictionary, a codebook), never computed from the private data")
        scaled = bool(scale and rng is not None)
        columns.append({"name": f, "kind": "numeric", "bounds": None if rng is None else [rng[0], rng[1]],
                        "scaled": scaled})
        names.append(f)
        ranges.append([-1.0, 1.0] if scaled else (None if rng is None else [rng[0], rng[1]]))
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"two features would be named {dupes[0]!r} (a one-hot feature COL=level and a column of that "
                         "name): rename the column or the level")
    return {"format": PREPROCESSING_FORMAT, "columns": columns, "features": names, "ranges": ranges,
            "feature_range": [-1.0, 1.0]}


def _transformers(spec: dict):
    """One fitted public transformer per input column (None: a raw numeric column).  fit reads the schema only."""
    import numpy as np

    from fast.preprocessing import PublicOneHotEncoder, PublicScaler

    out = []
    for c in spec["columns"]:
        if c["kind"] == "categorical":
            out.append(PublicOneHotEncoder(categories=[c["levels"]]).fit(np.empty((1, 1), dtype=object)))
        elif c["scaled"]:
            out.append(PublicScaler(bounds=tuple(c["bounds"]), feature_range=tuple(spec["feature_range"]))
                       .fit(np.zeros((1, 1))))
        else:
            out.append(None)
    return out


def _column_input(c: dict, cells: list[str], *, private: bool, path: str):
    import numpy as np

    if c["kind"] == "categorical":
        return np.array([None if v == "" else v for v in cells], dtype=object)[:, None]
    return (private_numeric(cells) if private else numeric(path, c["name"], cells))[:, None]


def apply_preprocessing(spec: dict, cols: dict[str, list[str]], *, private: bool, path: str = "DATA"):
    """The feature matrix of ``spec`` (:func:`preprocessing_spec`) from the CSV cells, row by row.

    Scaled numeric columns through ``fast.preprocessing.PublicScaler`` (clamped to the declared range, mapped to
    [-1, 1]), text columns through ``PublicOneHotEncoder`` (an undeclared level or an empty cell not declared: an
    all-zero block), raw numeric columns as they are.  Each output row is a function of its own input row and the
    public declaration only.

    Parameters
    ----------
    spec : dict
    cols : dict of str to list of str
        The input columns' cells.
    private : bool
        True: numeric cells are read by :func:`private_numeric` (never refused: an empty cell or a word is read as
        the middle of the range); False: by :func:`numeric` (finite numbers only, the non-private rule).
    path : str
        The file, for messages.

    Returns
    -------
    numpy.ndarray of shape (m, len(spec["features"]))

    Examples
    --------
    >>> spec = preprocessing_spec(["age", "city"], header=["age", "city"], bounds=((0.0, 100.0), {}),
    ...                           categories={"city": ["paris", "lyon"]})
    >>> apply_preprocessing(spec, {"age": ["25", "250", ""], "city": ["lyon", "rome", ""]}, private=True).tolist()
    [[-0.5, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    import numpy as np

    blocks = []
    for c, tr in zip(spec["columns"], _transformers(spec)):
        x = _column_input(c, cols[c["name"]], private=private, path=path)
        blocks.append(x.astype(float) if tr is None else np.asarray(tr.transform(x), dtype=float))
    return np.hstack(blocks)


def preprocessing_diagnostics(spec: dict, cols: dict[str, list[str]], *, private: bool, path: str = "DATA"):
    """The custodian's NON-private diagnostic of ``spec`` on the data: per declared column, the share of rows its
    range clamped (or held no number) or its level list missed (``fast.preprocessing.clipping_report``).

    Parameters
    ----------
    spec, cols, private, path
        As :func:`apply_preprocessing`.

    Returns
    -------
    list of dict
        ``column``, ``kind``, ``rows`` (clipped / unknown), ``share`` and ``what``; raw numeric columns are
        skipped.  It reads the data exactly: never part of a private release or of the record.
    """
    import numpy as np

    from fast.preprocessing import DomainClipper, clipping_report

    out = []
    for c, tr in zip(spec["columns"], _transformers(spec)):
        if tr is None and c.get("bounds") is not None:  # kept in its units (the stump's grid range): still clamped
            tr = DomainClipper(bounds=tuple(c["bounds"])).fit(np.zeros((1, 1)))
        if tr is None:
            continue
        x = _column_input(c, cols[c["name"]], private=private, path=path)
        rep = clipping_report(tr, x, threshold=1.0)  # printed by the caller, never warned from inside
        what = ("not a declared level" if c["kind"] == "categorical"
                else f"outside the declared range [{c['bounds'][0]:g}, {c['bounds'][1]:g}] or not a number")
        out.append({"column": c["name"], "kind": c["kind"], "rows": rep["rows_clipped"], "n": rep["n_rows"],
                    "share": rep["row_share"], "what": what})
    return out


def print_diagnostics(command_name: str, rows: list[dict], *, private: bool) -> None:
    """Print :func:`preprocessing_diagnostics` to standard error: every column under ``--diagnose`` (``private``:
    labelled NOT private), else only the columns above :data:`DIAGNOSE_THRESHOLD` as warnings (non-private
    commands, by default)."""
    if private:
        print(f"privlearn {command_name}: diagnostics ({NOT_PRIVATE}):", file=sys.stderr)
        for r in rows:
            print(f"  {r['column']}: {r['rows']} of {r['n']} rows ({100 * r['share']:.1f} %) {r['what']}",
                  file=sys.stderr)
        return
    for r in rows:
        if r["share"] > DIAGNOSE_THRESHOLD:
            print(f"privlearn {command_name}: warning: column {r['column']!r}: {r['rows']} of {r['n']} rows "
                  f"({100 * r['share']:.1f} %) {r['what']} (above {100 * DIAGNOSE_THRESHOLD:g} %): check the declared "
                  f"bounds / levels", file=sys.stderr)


def _check_spec(path: str, spec) -> dict:
    """A model's / rados file's ``preprocessing``, checked (DataError: damaged)."""
    damaged = DataError(f"{path}: damaged preprocessing (written by another privlearn?)")
    if not (isinstance(spec, dict) and spec.get("format") == PREPROCESSING_FORMAT
            and isinstance(spec.get("columns"), list) and isinstance(spec.get("features"), list)):
        raise damaged
    for c in spec["columns"]:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise damaged
        if c.get("kind") == "categorical":
            if not (isinstance(c.get("levels"), list) and c["levels"]):
                raise damaged
        elif c.get("kind") == "numeric":
            b = c.get("bounds")
            if c.get("scaled") and not (isinstance(b, list) and len(b) == 2 and all(isinstance(v, (int, float))
                                                                                   for v in b) and b[0] < b[1]):
                raise damaged
        else:
            raise damaged
    return spec


# --------------------------------------------------------------------------- writing


def write_atomic(path: str, text: str) -> None:
    """Write through a temporary file in the same directory and rename: the file appears whole or not at all.

    Parameters
    ----------
    path : str
        The destination (its directory must exist).
    text : str
        The whole content.

    Raises
    ------
    UsageError
        The directory does not exist.
    """
    target = Path(path)
    if target.parent and not target.parent.exists():
        raise UsageError(f"{path}: the directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def neutralise_cell(text: str) -> str:
    """A text cell made safe for a spreadsheet: one ``'`` before a cell that starts with ``=``, ``+``, ``-``, ``@``, a
    tab, a carriage return or ``'``; numbers (``-1.5``, ``+2e3``) and other text unchanged.

    A spreadsheet evaluates a cell starting with ``=`` (``+``, ``-``, ``@``) as a formula (OWASP: CSV injection);
    with the ``'`` it shows the text.  Prefixing a cell that already starts with ``'`` too makes the rule its own
    exact inverse (:func:`restore_cell`).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> neutralise_cell("=HYPERLINK(1)"), neutralise_cell("-1.5"), neutralise_cell("-x"), neutralise_cell("age")
    ("'=HYPERLINK(1)", '-1.5', "'-x", 'age')
    """
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def restore_cell(text: str) -> str:
    """The inverse of :func:`neutralise_cell`: the leading ``'`` removed (a number never starts with one).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> restore_cell("'=1+1"), restore_cell("''quoted"), restore_cell("-2")
    ('=1+1', "'quoted", '-2')
    """
    return text[1:] if text.startswith("'") else text


def write_csv(path: str, rows) -> None:
    """Write rows of cells as CSV (``csv`` module: a field holding a comma, a quote or a line break is quoted; each
    line ends with a line feed) atomically (:func:`write_atomic`).  Cells are written as given: neutralise text cells
    first.

    Parameters
    ----------
    path : str
        The destination.
    rows : iterable of sequences of str
        The records, header first.
    """
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    write_atomic(path, buffer.getvalue())


def check_outputs(inputs, outputs) -> None:
    """Refuse (UsageError, exit 2) an output path that names an input file: the same path once symbolic links are
    resolved, or the same file through another name (a hard link, ``os.path.samefile``).

    Parameters
    ----------
    inputs : list of (str, str)
        ``(what, path)`` of each input file (e.g. ``("CSV", args.csv)``).
    outputs : list of (str, str or None)
        ``(option, path)`` of each output (None: not written).

    Raises
    ------
    UsageError
        An output is an input.

    Examples
    --------
    >>> check_outputs([("CSV", "data.csv")], [("--out", "./data.csv")])
    Traceback (most recent call last):
    ...
    fast.cli.UsageError: --out ./data.csv is the input CSV data.csv: refusing to overwrite an input (choose another path)
    """
    for option, out in outputs:
        if out is None:
            continue
        for what, path in inputs:
            same = os.path.realpath(out) == os.path.realpath(path)
            if not same and os.path.exists(out) and os.path.exists(path):
                try:
                    same = os.path.samefile(out, path)
                except OSError:
                    same = False
            if same:
                raise UsageError(f"{option} {out} is the input {what} {path}: refusing to overwrite an input (choose "
                                 "another path)")


def _jsonable(obj):
    """numpy arrays / scalars and tuples to plain JSON types."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return obj


def _version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("privlearn")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def _commit() -> str | None:
    """The git commit of THIS privlearn source tree (``git rev-parse HEAD`` in the package's checkout), or None: not
    a checkout (an installed package), no git, or the package sits inside some other repository."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split()
    if out.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != root:
        return None
    return lines[1]


def _strict_json(obj):
    """:func:`_jsonable`, with non-finite floats written as the strings "inf", "-inf", "nan" (strict JSON)."""
    obj = _jsonable(obj)
    if isinstance(obj, dict):
        return {k: _strict_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_strict_json(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj


def spent_record(spent) -> dict | None:
    """A ``PrivacySpent`` (``privacy_spent_``) as the record's ``privacy_spent``: epsilon, delta, rho,
    neighbouring, accounting (None: nothing private was released)."""
    if spent is None:
        return None
    return {"epsilon": float(spent.epsilon), "delta": float(spent.delta),
            "rho": None if spent.rho is None else float(spent.rho),
            "neighbouring": spent.neighbouring, "accounting": spent.accounting}


#: the ``format`` of every record (:func:`write_record`)
RECORD_FORMAT = "privlearn-record/1"
#: attributes of the parsed arguments that are not parameters of the command
_NOT_PARAMETERS = {"command", "progress", "argv_"}


def _record_arguments(p: argparse.ArgumentParser, default: str | None) -> None:
    where = (f"default: {default}" if default else "default: none is written")
    p.add_argument("--record", metavar="PATH",
                   help=f"where to write the JSON record of the run: the command line, version, commit, public "
                        f"parameters, privacy spent and files written ({where})")


def plan_record(args, inputs, outputs) -> str | None:
    """The record's path (``--record``, else the first output's path + ``.json``, else None), after refusing
    (UsageError, exit 2) an output or the record that names an input file or a missing directory, or a record that
    names an output.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments (``record``: the ``--record`` value, may be absent).
    inputs : list of (str, str)
        ``(what, path)`` of each input file.
    outputs : list of (str, str or None)
        ``(option, path)`` of each output file (None: not written).

    Returns
    -------
    str or None

    Examples
    --------
    >>> import argparse
    >>> plan_record(argparse.Namespace(record=None), [("CSV", "d.csv")], [("--out", "m.json")])
    'm.json.json'
    """
    record = getattr(args, "record", None)
    if record is None:
        record = next((f"{path}.json" for _, path in outputs if path is not None), None)
    check_outputs(inputs, [*outputs, ("--record", record)])
    for option, path in [*outputs, ("--record", record)]:  # refused before anything is written, not after
        if path is not None and not Path(path).resolve().parent.is_dir():
            raise UsageError(f"{option} {path}: the directory {Path(path).parent} does not exist")
    if record is not None:
        for option, path in outputs:
            if path is not None and os.path.realpath(path) == os.path.realpath(record):
                raise UsageError(f"--record {record} is the {option} output: choose another path")
    return record


def write_record(args, path: str | None, *, outputs, privacy_spent, results=None) -> None:
    """Write the machine-readable record of a run to ``path`` (JSON, atomically; nothing when ``path`` is None).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments: every option is a PUBLIC parameter of the command and is recorded as given.
    path : str or None
        From :func:`plan_record`.
    outputs : list of str
        The files the command wrote.
    privacy_spent : dict or None
        :func:`spent_record` of what was released (None: nothing private).
    results : dict, optional
        What the command reports beyond its files (e.g. the accuracy of ``score``, the direction of ``causal``).

    Notes
    -----
    The record holds ``format`` ("privlearn-record/1"), ``command``, ``argv`` (the arguments after ``privlearn``),
    ``version``, ``commit`` (None outside a git checkout of privlearn), ``parameters``, ``privacy_spent``,
    ``outputs`` and ``results``.  Non-finite numbers are written as the strings "inf" / "nan".
    """
    if path is None:
        return
    params = {k: v for k, v in vars(args).items() if k not in _NOT_PARAMETERS}
    record = {"format": RECORD_FORMAT, "command": args.command, "argv": list(getattr(args, "argv_", []) or []),
              "version": _version(), "commit": _commit(), "parameters": params, "privacy_spent": privacy_spent,
              "outputs": list(outputs), "results": results or {}}
    write_atomic(path, json.dumps(_strict_json(record), indent=2, allow_nan=False) + "\n")


RADOS_MAGIC = "# privlearn-rados "
#: the ``format`` of the model files ``fit-rados --out`` and ``boost --out`` write (``predict`` / ``score`` read it)
MODEL_FORMAT = "privlearn-model/1"
#: the ``format`` of the coding tables ``impact --tables`` writes (``impact-apply`` reads it)
TABLES_FORMAT = "privlearn-impact-tables/1"


def read_rados(path: str):
    """Read a file written by ``privlearn rados``.

    The file is CSV: its first record is one cell ``# privlearn-rados {json}`` (the metadata; format 2, quoted by the
    ``csv`` module; format 1 files, whose first line was the bare text, are read too), then the header (feature names
    made spreadsheet-safe, :func:`neutralise_cell`), then one rado per row.

    Parameters
    ----------
    path : str

    Returns
    -------
    meta : dict
        The metadata: mechanism, epsilon, delta, m, n, support, features, bounds, labels, version.
    features : list of str
        The feature names exactly as given to ``privlearn rados`` (the metadata's; the header must agree).
    rados : numpy.ndarray of shape (n, d)
        One rado per ROW (the papers write rados as columns).

    Raises
    ------
    DataError
        No such file, not a rados file, damaged metadata, a header that does not match it, a row with another number
        of cells than the header, a non-numeric cell, no rados.
    """
    import numpy as np

    p = Path(path)
    if not p.is_file():
        raise DataError(f"{path}: no such file")
    not_rados = DataError(f"{path}: not a rados file written by `privlearn rados` (its first record must start with "
                          f"{RADOS_MAGIC.strip()!r})")
    try:
        with p.open(newline="", encoding="utf-8") as fh:
            text = fh.read()
    except UnicodeDecodeError:
        raise not_rados from None
    legacy = text.startswith(RADOS_MAGIC)  # format 1: the metadata line unquoted
    if legacy:
        first, _, rest = text.partition("\n")
        records = [[first.rstrip("\r")]]
        body = rest
    else:
        body = text
        records = []
    try:
        records += list(csv.reader(io.StringIO(body, newline="")))
    except csv.Error as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None
    if not records or len(records[0]) != 1 or not records[0][0].startswith(RADOS_MAGIC):
        raise not_rados
    try:
        meta = json.loads(records[0][0][len(RADOS_MAGIC):])
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: damaged metadata line ({exc})") from None
    if not isinstance(meta, dict) or len(records) < 2:
        raise DataError(f"{path}: damaged rados file (no metadata object or no header)")
    header, rows = records[1], [r for r in records[2:] if r]
    features = meta.get("features")
    if not (isinstance(features, list) and all(isinstance(f, str) for f in features)):
        features = [restore_cell(h) for h in header] if not legacy else header
    expected = features if legacy else [neutralise_cell(f) for f in features]
    if header != expected:
        raise DataError(f"{path}: the header {header} does not match the metadata's features {features}")
    for line, r in enumerate(rows, start=3):
        if len(r) != len(header):
            raise DataError(f"{path}, record {line}: {len(r)} cells, the header has {len(header)}")
    cols = {i: [r[i] for r in rows] for i in range(len(header))}
    R = np.column_stack([numeric(path, f, cols[i]) for i, f in enumerate(features)]) if rows and header \
        else np.empty((0, len(header)))
    if R.shape[0] == 0:
        raise DataError(f"{path}: no rados in the file")
    return meta, list(features), R


# --------------------------------------------------------------------------- subcommands


def _rados_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("csv", metavar="CSV", help="the private examples: a CSV file with a header row")
    p.add_argument("--label", required=True, metavar="COL", help="the label column")
    p.add_argument("--classes", required=True, metavar="NEG,POS",
                   help="the PUBLIC label set, negative first (e.g. no,yes or 0,1): a label equal to POS is +1 and "
                        "every other cell (NEG, empty, anything else) is -1; never read from the data")
    p.add_argument("--epsilon", required=True, type=float, metavar="E", help="TOTAL epsilon of the whole release")
    p.add_argument("--delta", type=float, default=1e-6, metavar="D", help="TOTAL delta (default 1e-6)")
    p.add_argument("--sensitive", metavar="COL",
                   help="DP-Feat (nock2015 Alg. 2): release rados of this boolean column (values -1/1 or 0/1) ALONE, "
                        "with --features COL (with other columns the exact sums would reveal it: refused). Without "
                        "it, every example is protected (Gaussian edges, nock2015 s5.2).")
    p.add_argument("--features", metavar="A,B,...",
                   help="feature columns, one CSV record (quote a name holding a comma; default: every column but the "
                        "label)")
    _bounds_arguments(p, "each numeric feature is scaled from its range to [-1, 1] (PublicScaler)")
    p.add_argument("--n", type=int, default=1000, help="number of rados to release (default 1000)")
    p.add_argument("--support", type=int, default=10,
                   help="examples summed per rado, Gaussian edges only (default 10): the signal grows like the "
                        "support, the noise like its square root; see the custodian tutorial")
    p.add_argument("--out", required=True, metavar="FILE", help="where to write the rados (CSV with a metadata line)")
    p.add_argument("--seed", type=int, default=None,
                   help="seeds the NON-private randomness only (which examples enter a rado); the noise is never seeded")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="CSV a Parquet directory: run on this dask scheduler (e.g. tcp://host:8786)")
    p.add_argument("--local-cluster", type=int, metavar="N",
                   help="CSV a Parquet directory: start N local dask worker processes for this run")
    _record_arguments(p, "FILE.json")


@command("rados", help="release differentially private rados from a CSV file",
         examples=["privlearn rados patients.csv --label outcome --classes 0,1 --epsilon 1 --bounds -5:5 "
                   "--out rados.csv",
                   "privlearn rados loans.csv --label default --classes no,yes --epsilon 2 --delta 1e-7 \\\n"
                   "    --bound age=18:100 --bound income=0:500000 --bounds 0:1 --n 5000 --support 20 --out r.csv",
                   "privlearn rados survey.csv --label y --classes -1,1 --features smoker --sensitive smoker "
                   "--epsilon 4 --delta 1e-5 --n 10 --out r.csv"],
         arguments=_rados_arguments, progress=True)
def cmd_rados(args) -> int:
    """Release rados (Rademacher observations, nock2015) of a CSV file under differential privacy.

    Features are mapped to [-1, 1] with PUBLIC bounds given on the command line (values outside are clipped; the
    bounds are never computed from the data); text features are one-hot encoded against the levels of
    --categories FILE (a value outside them: an all-zero block), and the edges are clipped to sqrt(columns). Without
    --sensitive, every example is protected: the edge vectors
    y_i x_i are released once with the exact discrete Gaussian mechanism (L2 sensitivity 2 sqrt(d)) within the
    total (epsilon, delta), and the rados are sums of --support noisy edges. With --sensitive COL (and --features COL),
    DP-Feat releases rados of that one boolean column within the total (epsilon, delta); other columns are refused,
    since their exact sums would identify the signatures and with them the protected values.

    The label set is public: --classes NEG,POS declares it, a label equal to POS is +1 and every other cell is -1, so
    whether the command succeeds never depends on which labels the file holds.

    The output is a CSV file: a first record '# privlearn-rados {json}' (one quoted cell: mechanism, guarantee,
    bounds, feature names, the declared labels, version), a header (names made spreadsheet-safe), then one rado per
    row. Train on it anywhere with `privlearn fit-rados FILE`."""
    import numpy as np

    from fast import dp_rados

    if args.n < 1:
        raise UsageError(f"--n must be >= 1, got {args.n}")
    classes = parse_classes(args.classes)
    record = plan_record(args, [("CSV", args.csv)], [("--out", args.out)])
    parquet = Path(args.csv).is_dir()  # a Parquet directory: the dask branch (fast/_cli_dask.py)
    if not parquet and (args.scheduler or args.local_cluster):
        raise UsageError("--scheduler and --local-cluster are for a Parquet directory input")
    if parquet:
        from fast import _cli_dask

        header_cols = _cli_dask.parquet_header(args.csv)
    else:
        header_cols = _csv_header(args.csv)
    if args.features:
        features = [f for f in _csv_list(args.features, "--features") if f]
    else:
        features = [c for c in header_cols if c != args.label]
    if args.label in features:
        raise UsageError(f"the label column {args.label!r} cannot also be a feature")
    if args.sensitive and args.sensitive not in features:
        features.append(args.sensitive)
    categories = read_categories(args.categories) if args.categories else {}
    if args.sensitive and args.sensitive in categories:
        raise UsageError(f"--sensitive {args.sensitive!r} is a boolean column: it cannot be declared in --categories")
    if not features:
        raise DataError(f"{args.csv}: no feature column besides the label {args.label!r}")
    others = [f for f in features if f != args.sensitive]
    if args.sensitive and others:
        # DP-Feat's guarantee covers the j*-coordinate of each rado alone: exact coordinates of other features identify
        # the signatures and with them the protected values (one rado, m = 8, epsilon 2: delta 0.50 for the whole rado
        # against 0.031 for its j*-coordinate; tests/test_privacy_surface.py), so such a release protects nothing.
        raise UsageError(
            f"--sensitive {args.sensitive!r} with other feature columns ({', '.join(others)}) would release exact sums "
            "of those columns, which identify the signatures and with them the protected values: DP-Feat protects "
            f"nothing then. Release the protected column alone (--features {args.sensitive}) or drop --sensitive "
            "(Gaussian edges protect every example)")
    # the public preprocessing, from the header and the flags alone: numeric features scaled from their declared
    # range to [-1, 1] (PublicScaler), text features one-hot on their declared levels (PublicOneHotEncoder)
    spec = preprocessing_spec(others, header=header_cols, bounds=parse_bounds_options(args.bounds, args.bound),
                              categories=categories) if others else None
    if parquet:
        return _cli_dask.rados_parquet(args, record=record, classes=classes, features=features, spec=spec)
    steps = progress_bar(args, 3, "rados")
    cols = read_csv(args.csv, [args.label, *features], progress=args)
    steps.update()
    y = declared_labels(cols[args.label], classes)  # the declared pair: no label value can fail the command
    m = len(y)
    if spec is not None:
        X = apply_preprocessing(spec, cols, private=True)  # never refused per cell: mapped into the public domain
        features = list(spec["features"])
        n_blocks = len(spec["columns"])  # a one-hot block has at most one 1: row norm <= sqrt(columns)
    else:
        X = private_numeric(cols[args.sensitive])[:, None]
        n_blocks = len(features)
    if args.diagnose and spec is not None:
        print_diagnostics("rados", preprocessing_diagnostics(spec, cols, private=True), private=True)
    if args.sensitive:
        j = features.index(args.sensitive)
        # the protected column is read by the source as +1 where > 0, else -1 (DPFeatSource.in_domain): the -1/1 and
        # 0/1 codings alike, and no value refused (the coding was inferred from the set of values, and a third value
        # made the command fail: one record decided the exit code, issue 25)
        source = dp_rados.dp_feat(j, args.epsilon, args.delta)
        mechanism = (f"DP-Feat (nock2015 Alg. 2) protecting column {args.sensitive!r} only: the rados hold that "
                     "column alone (other feature columns are refused: their exact sums would identify the signatures "
                     "and with them the protected values)")
    else:
        if args.support > m:
            raise UsageError(f"--support {args.support} exceeds the number of examples")
        clip = math.sqrt(n_blocks)
        source = dp_rados.gaussian_edges(args.epsilon, args.delta, args.support, clip=clip)
        mechanism = (f"Gaussian edges (nock2015 s5.2): edges y_i x_i (rows clipped to L2 norm {clip:.6g}) released once "
                     f"with the exact discrete Gaussian, rados = sums of {args.support} noisy edges; every example "
                     "protected (replace-one)")
    spent = source.guarantee(m, args.n)
    # the release's expected noise against its largest signal, from public quantities (m, the released columns, the
    # budget, the clip): in the record, and NoiseDominatesWarning on stderr when learning from it is hopeless
    noise = source.noise_report(m, X.shape[1])
    dp_rados.warn_if_noise_dominates(noise)
    steps.update()
    rados = source(X, y, args.n, args.seed)
    steps.update()
    steps.close()
    meta = {
        "privlearn": _version(), "mechanism": mechanism,
        "epsilon": float(spent[0]), "delta": float(spent[1]), "granted": [args.epsilon, args.delta],
        "format": 2, "m": m, "n": int(rados.shape[0]), "support": None if args.sensitive else args.support,
        "label": args.label, "labels": {"-1": classes[0], "+1": classes[1]},
        "features": features, "sensitive": args.sensitive,
        "bounds": {} if spec is None else {c["name"]: c["bounds"] for c in spec["columns"] if c["kind"] == "numeric"},
        "scaling": "x -> clip((2x - lo - hi)/(hi - lo), -1, 1) with the public bounds",
        "preprocessing": spec,
        "rows": "one rado per row (the papers write rados as columns)",
    }
    records = [[RADOS_MAGIC + json.dumps(meta, sort_keys=True)], [neutralise_cell(f) for f in features]]
    records += [[repr(float(v)) for v in row] for row in rados]
    write_csv(args.out, records)
    print(f"wrote {rados.shape[0]} rados of {len(features)} features to {args.out}")
    print(f"privacy: ({spent[0]:.6g}, {spent[1]:.3g})-DP, {mechanism}")
    write_record(args, record, outputs=[args.out],
                 privacy_spent=spent_record(source.privacy_spent_for_fit(m, args.n, len(features))),
                 results={"m": m, "n": int(rados.shape[0]), "mechanism": mechanism,
                          "noise_report": None if noise is None else noise.as_dict()})
    return EXIT_OK


def _csv_header(path: str) -> list[str]:
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{path}: no such file")
    try:
        with p.open(newline="", encoding="utf-8-sig") as fh:
            row = next(csv.reader(fh), None)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})") from None
    if not row:
        raise DataError(f"{path}: the file is empty (a header row naming the columns is needed)")
    return [h.strip() for h in row]


def _fit_rados_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a rados file written by `privlearn rados`")
    p.add_argument("--rounds", type=int, default=1000, metavar="T", help="boosting rounds (default 1000)")
    p.add_argument("--out", metavar="MODEL.json",
                   help="write the model (coefficients, scaling, labels) as JSON: `privlearn predict` / `score` read it")
    _record_arguments(p, "MODEL.json.json with --out")


@command("fit-rados", help="train a linear classifier from a rados file (RadoBoost)",
         examples=["privlearn fit-rados rados.csv", "privlearn fit-rados rados.csv --rounds 300 --out model.json"],
         arguments=_fit_rados_arguments, progress=True)
def cmd_fit_rados(args) -> int:
    """Train a linear classifier on released rados only (RadoBoost, nock2015 Alg. 1).

    Training is post-processing of the released rados: it costs no privacy. The model scores a raw example x as
    sum_j theta_j s_j(x), s_j the public-bounds scaling recorded in the rados file; a positive score predicts the
    label recorded as +1."""
    from fast.radoboost import radoboost

    if args.rounds < 1:
        raise UsageError(f"--rounds must be >= 1, got {args.rounds}")
    record = plan_record(args, [("rados file", args.file)], [("--out", args.out)])
    meta, features, R = read_rados(args.file)
    # radoboost's own bar (tqdm's default, standard error) only when progress_bar would show one
    result = radoboost(R, args.rounds, progress=_shows_progress(args))
    theta = [float(t) for t in result.theta]
    model = {"format": MODEL_FORMAT, "kind": "radoboost-linear", "privlearn": _version(),
             "model": "linear, score = sum_j theta_j s_j(x)", "features": features, "theta": dict(zip(features, theta)),
             "bounds": meta.get("bounds", {}), "sensitive": meta.get("sensitive"), "scaling": meta.get("scaling", ""),
             "preprocessing": meta.get("preprocessing"),
             "label": meta.get("label"), "labels": meta.get("labels", {}),
             "privacy": {"epsilon": meta.get("epsilon"), "delta": meta.get("delta"), "mechanism": meta.get("mechanism")},
             "rounds": args.rounds, "stop_reason": getattr(result, "stop_reason", "")}
    width = max(len(f) for f in features)
    print(f"RadoBoost on {R.shape[0]} rados, {args.rounds} rounds "
          f"(privacy of the rados: ({meta.get('epsilon')}, {meta.get('delta')})-DP; training adds no cost)")
    for f, t in zip(features, theta):
        print(f"  {f:{width}s}  {t: .6g}")
    if args.out:
        write_atomic(args.out, json.dumps(model, indent=2) + "\n")
        print(f"wrote {args.out}")
    released = {"epsilon": meta.get("epsilon"), "delta": meta.get("delta"), "rho": None,
                "neighbouring": "as the rados file's release (its mechanism: see accounting)",
                "accounting": f"post-processing of the rados file {args.file} (training adds no privacy cost); the "
                              f"rados were released by: {meta.get('mechanism')}"}
    write_record(args, record, outputs=[args.out] if args.out else [], privacy_spent=released,
                 results={"theta": model["theta"], "rounds": args.rounds})
    return EXIT_OK


def _causal_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("csv", metavar="CSV", help="a CSV file with a header row")
    p.add_argument("--x", required=True, metavar="COL", help="first variable")
    p.add_argument("--y", required=True, metavar="COL", help="second variable")
    p.add_argument("--epsilon", required=True, type=float, metavar="E", help="TOTAL epsilon of the decision")
    p.add_argument("--delta", type=float, default=1e-6, metavar="D", help="TOTAL delta (default 1e-6)")
    p.add_argument("--score", default="kendall", choices=["kendall", "spearman", "hsic", "iqr"],
                   help="dependence score (default kendall)")
    p.add_argument("--privacy", default="test", choices=["test", "train"],
                   help="which half is private (default test: the training half is treated as public)")
    p.add_argument("--x-bounds", metavar="LO:HI", help="public range of x (needed with --privacy train)")
    p.add_argument("--y-bounds", metavar="LO:HI", help="public range of y (needed with --privacy train)")
    p.add_argument("--seed", type=int, default=None, help="seeds the train/test split only (non-private)")
    _record_arguments(p, None)


@command("causal", help="decide the causal direction x -> y or y -> x privately (kusner2016 ch. 4)",
         examples=["privlearn causal pairs.csv --x altitude --y temperature --epsilon 1",
                   "privlearn causal pairs.csv --x a --y b --epsilon 2 --score hsic --privacy train \\\n"
                   "    --x-bounds 0:5000 --y-bounds -30:40"],
         arguments=_causal_arguments, progress=True)
def cmd_causal(args) -> int:
    """Private additive-noise-model causal inference (kusner2016 ch. 4, PrivateANM).

    Fits kernel ridge regressions both ways on one half of the records and releases the two dependence scores of the
    residuals on the other half with noise, within the total (epsilon, delta). --privacy test (default) protects
    the test half (the training half must be public or be held out); --privacy train protects the training half and
    needs |x|, |y| <= 1, so x and y are scaled with the public --x-bounds / --y-bounds. Prints the direction
    (x->y, y->x, or undecided when a release refused) and the privacy spent."""
    import numpy as np

    from fast.estimators.causal import PrivateANM

    record = plan_record(args, [("CSV", args.csv)], [])
    steps = progress_bar(args, 2, "causal: reading")
    cols = read_csv(args.csv, [args.x, args.y], progress=args)
    x = private_numeric(cols[args.x])  # never refused per cell: PrivateANM clamps to its public domain (issue 25)
    y = private_numeric(cols[args.y])
    if args.privacy == "train":
        if not (args.x_bounds and args.y_bounds):
            raise UsageError("--privacy train needs --x-bounds and --y-bounds (public ranges, never read from the data)")
        x = scale_to_unit(x[:, None], [parse_bounds(args.x_bounds, "--x-bounds")])[:, 0]
        y = scale_to_unit(y[:, None], [parse_bounds(args.y_bounds, "--y-bounds")])[:, 0]
    kwargs = dict(epsilon=args.epsilon, delta=args.delta, privacy=args.privacy, random_state=args.seed)
    if args.privacy == "train":
        kwargs["bandwidth"] = 0.5  # a fixed (public) kernel bandwidth: the median heuristic would read the data
    steps.update()
    steps.set_description(f"causal: kernel ridge both ways, private {args.score} scores")
    import warnings

    from fast.estimators.causal import ANMNoiseWarning, warn_if_anm_noise

    with warnings.catch_warnings():  # said below, on standard output with the report (public quantities only)
        warnings.simplefilter("ignore", ANMNoiseWarning)
        est = PrivateANM(args.score, **kwargs).fit(np.asarray(x), np.asarray(y))
    steps.update()
    steps.close()
    spent = getattr(est, "privacy_spent_", None)
    direction = est.direction_
    names = {"x->y": f"{args.x} -> {args.y}", "y->x": f"{args.y} -> {args.x}"}
    print(f"direction: {names.get(direction, direction)}")
    if spent is not None:
        print(f"privacy: ({spent.epsilon:.6g}, {spent.delta:.3g})-DP, {spent.neighbouring}; {spent.accounting}")
    noise = est.noise_report_  # issue 28 item 6: None where no Laplace-noised score is released
    if noise is not None:
        print(f"noise: each released score carries Laplace noise of scale {noise.laplace_scale:.3g} (within "
              f"+-{noise.score_accuracy_95:.3g} w.p. 0.95; their difference within +-"
              f"{noise.difference_accuracy_95:.3g}), against score differences of at most {noise.score_range:.3g} "
              f"(noise-to-signal {noise.noise_to_signal:.3g}, warned above {noise.threshold:g})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ANMNoiseWarning)
        warn_if_anm_noise(noise)
    for w in caught:  # part of the report on standard output (stderr stays quiet)
        print(f"warning: {w.message}")
    write_record(args, record, outputs=[], privacy_spent=spent_record(spent),
                 results={"direction": direction, "reading": names.get(direction, direction),
                          "private_scores": getattr(est, "private_scores_", None),
                          "noise_report": None if noise is None else noise.as_dict()})
    return EXIT_OK


def _boost_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("csv", metavar="CSV", help="the private examples: a CSV file with a header row")
    p.add_argument("--label", required=True, metavar="COL", help="the label column")
    p.add_argument("--classes", required=True, metavar="NEG,POS",
                   help="the PUBLIC label set, negative first (e.g. no,yes or 0,1): a label equal to POS is +1 and "
                        "every other cell (NEG, empty, anything else) is -1; never read from the data")
    p.add_argument("--epsilon", required=True, type=float, metavar="E", help="TOTAL epsilon of the fit")
    p.add_argument("--delta", type=float, default=1e-6, metavar="D", help="TOTAL delta (default 1e-6)")
    p.add_argument("--features", metavar="A,B,...",
                   help="feature columns, one CSV record (quote a name holding a comma; default: every column but the "
                        "label)")
    p.add_argument("--weak-learner", default="auto", choices=["auto", "halfspace", "stump"],
                   help="private weak learner; auto (the default): halfspace when --data-norm is given, else stump, "
                        "the learner that works at epsilon = 1 (docs/utility.md; needs --bounds)")
    p.add_argument("--data-norm", type=float, metavar="R",
                   help="halfspace: PUBLIC bound on the L2 norm of a row (rows are clipped to it); default with "
                        "--bounds: sqrt(numeric features + text columns), the largest norm of a scaled row. Without "
                        "--bounds the features are clipped in their own units, so a feature in large units decides "
                        "the clipping: declare --bounds to scale each to [-1, 1] first")
    _bounds_arguments(p, "halfspace: each numeric feature is scaled from its range to [-1, 1] (PublicScaler) before "
                         "the rows are clipped to --data-norm (without any --bounds, features stay in their units); "
                         "stump: the range of each feature's threshold grid (required)")
    p.add_argument("--rounds", type=int, default=None, metavar="T",
                   help="boosting rounds (default: 25 with stump, the estimator's measured default; 100 with "
                        "halfspace, the paper's)")
    p.add_argument("--out", required=True, metavar="MODEL.json",
                   help="where to write the released model (JSON: `privlearn predict` / `score` read it)")
    _record_arguments(p, "MODEL.json.json")


@command("boost", help="train a differentially private boosted classifier from a CSV file (bun2020)",
         examples=["privlearn boost patients.csv --label outcome --classes 0,1 --epsilon 2 --data-norm 4 "
                   "--out model.json",
                   "privlearn boost loans.csv --label default --classes no,yes --epsilon 1 --weak-learner stump \\\n"
                   "    --bounds 0:1 --bound income=0:500000 --rounds 50 --out model.json"],
         arguments=_boost_arguments, progress=True)
def cmd_boost(args) -> int:
    """Private boosting (bun2020 LazyBregBoost, fast.PrivateBoostClassifier) within the total (epsilon, delta).

    The bounds the privacy proof needs are PUBLIC and given on the command line: --data-norm for the halfspace
    learner (rows clipped to that L2 norm), --bounds for the ranges of the numeric features (halfspace: each scaled
    to [-1, 1] first, and --data-norm defaults to sqrt(columns); stump: the threshold grid), --categories FILE for
    the levels of the text features (one-hot encoded; a feature with neither is a usage error); so is the label set,
    --classes NEG,POS (a label equal to POS is +1, every other cell -1). The model written (released weak
    hypotheses, the declared classes, the public preprocessing that predict / score apply, the privacy spent) is
    the private output: it may be published. --diagnose prints the custodian's (NOT private) share of rows each
    declared range or level list clipped."""
    import numpy as np

    from fast import PrivateBoostClassifier

    if args.weak_learner == "auto":  # from the flags alone: --data-norm names the halfspace learner's bound
        args.weak_learner = "halfspace" if args.data_norm is not None else "stump"
    if args.rounds is None:
        args.rounds = 100 if args.weak_learner == "halfspace" else 25
    classes = parse_classes(args.classes)
    record = plan_record(args, [("CSV", args.csv)], [("--out", args.out)])
    header_cols = _csv_header(args.csv)
    features = ([f for f in _csv_list(args.features, "--features") if f] if args.features
                else [c for c in header_cols if c != args.label])
    if args.label in features:
        raise UsageError(f"the label column {args.label!r} cannot also be a feature")
    if not features:
        raise DataError(f"{args.csv}: no feature column besides the label {args.label!r}")
    kwargs = dict(epsilon=args.epsilon, delta=args.delta, n_rounds=args.rounds, weak_learner=args.weak_learner,
                  classes=(-1, 1))  # the labels are mapped to -1 / +1 below, against the declared pair
    categories = read_categories(args.categories) if args.categories else {}
    bounds = parse_bounds_options(args.bounds, args.bound)
    halfspace = args.weak_learner == "halfspace"
    # halfspace without any --bounds (and a numeric feature): the features are used in their own units
    scaled = not halfspace or bounds != (None, {}) or all(f in categories for f in features)
    # the public preprocessing, from the header and the flags alone: halfspace scales the numeric features to
    # [-1, 1] (PublicScaler), stump keeps them in their units over the declared grid; text features one-hot
    spec = preprocessing_spec(features, header=header_cols, bounds=bounds, categories=categories, scale=halfspace,
                              need_bounds=scaled)
    if halfspace:
        if args.data_norm is None and not scaled:
            raise UsageError("--weak-learner halfspace needs --data-norm R (a PUBLIC bound on the norm of a row, never "
                             "read from the data) or --bounds (public ranges: each feature scaled to [-1, 1], rows of "
                             "norm at most sqrt(columns))")
        kwargs["data_norm"] = args.data_norm if args.data_norm is not None else math.sqrt(len(spec["columns"]))
    else:
        lo, hi = zip(*spec["ranges"])
        kwargs["bounds"] = (np.array(lo, dtype=float), np.array(hi, dtype=float))
    cols = read_csv(args.csv, [args.label, *features], progress=args)
    y = declared_labels(cols[args.label], classes)  # the declared pair: no label value can fail the command
    X = apply_preprocessing(spec, cols, private=True)  # mapped into data_norm / bounds, never refused (issue 25)
    if args.diagnose:
        print_diagnostics("boost", preprocessing_diagnostics(spec, cols, private=True), private=True)
    features = list(spec["features"])
    rounds = progress_bar(args, args.rounds, "boost: rounds", unit="round")
    import warnings

    from fast.estimators.boosting import BoostingNoiseWarning, warn_if_boosting_noise

    with warnings.catch_warnings():  # said below, on standard output with the report (public quantities only)
        warnings.simplefilter("ignore", BoostingNoiseWarning)
        if rounds.disable:
            clf = PrivateBoostClassifier(**kwargs).fit(X, y)
        else:  # the estimator prints 'round k/T' every T/10 rounds: those lines move the bar, stdout stays clean
            with contextlib.redirect_stdout(_RoundsToBar(rounds)):
                clf = PrivateBoostClassifier(**kwargs, progress=True).fit(X, y)
    rounds.close()
    spent = clf.privacy_spent_
    model = {"format": MODEL_FORMAT, "kind": "private-boost", "privlearn": _version(),
             "model": f"PrivateBoostClassifier ({args.weak_learner})", "features": features, "label": args.label,
             "labels": {"-1": classes[0], "+1": classes[1]},
             "params": _jsonable(kwargs),
             "hypotheses": np.asarray(clf.hypotheses_).tolist(),
             "coef": np.asarray(clf.coef_).tolist() if hasattr(clf, "coef_") else None,
             "preprocessing": spec,
             "privacy": {"epsilon": spent.epsilon, "delta": spent.delta, "neighbouring": spent.neighbouring,
                         "accounting": spent.accounting}}
    write_atomic(args.out, json.dumps(model, indent=2) + "\n")
    print(f"wrote {args.out}: {args.rounds} rounds, {args.weak_learner} weak learner, {len(features)} features")
    print(f"privacy: ({spent.epsilon:.6g}, {spent.delta:.3g})-DP, {spent.neighbouring}")
    noise = clf.noise_report_  # issue 28 item 6: each round's expected noise, from public quantities only
    print(f"noise: each round's {noise.mechanism} has noise scale {noise.noise_scale:.3g}, "
          + (f"so a stump is selected w.p. 0.95 only with a score {noise.selection_gap_95:.3g} above every other"
             if noise.selection_gap_95 is not None else f"norm {noise.noise_norm:.3g}")
          + f", against the largest score / centroid norm {noise.signal_max:g} (noise-to-signal "
          f"{noise.noise_to_signal:.3g}, warned above {noise.threshold:g})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BoostingNoiseWarning)
        warn_if_boosting_noise(noise)
    for w in caught:  # part of the report on standard output (stderr stays quiet)
        print(f"warning: {w.message}")
    write_record(args, record, outputs=[args.out], privacy_spent=spent_record(spent),
                 results={"features": features, "preprocessing": spec, "noise_report": noise.as_dict()})
    return EXIT_OK


def _impact_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("csv", metavar="CSV", help="a CSV file with a header row")
    p.add_argument("--column", action="append", required=True, metavar="COL",
                   help="a categorical column to impact-code (repeatable)")
    p.add_argument("--label", required=True, metavar="COL", help="the two-class target column")
    p.add_argument("--classes", metavar="NEG,POS",
                   help="the PUBLIC label set, negative first, required with --epsilon: a label equal to POS is the "
                        "positive class and every other cell (NEG, empty, anything else) negative; never read from "
                        "the data")
    p.add_argument("--positive", metavar="VALUE",
                   help="without --epsilon and --classes only: which label value is the positive class (the two "
                        "classes are then read from the data: not for a private release)")
    p.add_argument("--epsilon", type=float, metavar="E",
                   help="TOTAL epsilon: release Laplace-smeared codes (needs --levels for every column); without it "
                        "the codes are out-of-fold but NOT differentially private")
    p.add_argument("--levels", action="append", metavar="COL=a,b,c",
                   help="the PUBLIC list of levels of a column (a codebook, not the values seen in the data), one CSV "
                        "record (quote a level holding a comma)")
    p.add_argument("--mode", default="cross", choices=["cross", "split", "jackknife"],
                   help="how the training rows are coded without their own label (default cross-frame); jackknife is "
                        "NON-private only (refused with --epsilon, exit 2: each row's code would subtract its own "
                        "exact label from the noisy table)")
    p.add_argument("--diagnose", action="store_true",
                   help=f"print the share of rows whose value is outside --levels, per column, to standard error "
                        f"({NOT_PRIVATE}; never in the record). Without it a private run prints nothing that depends "
                        f"on the data; without --epsilon a column above {100 * DIAGNOSE_THRESHOLD:g} %% is warned "
                        f"about anyway")
    p.add_argument("--seed", type=int, default=None, help="seeds the fold assignment only (non-private)")
    p.add_argument("--row-id", metavar="COL",
                   help="a column of stable integer row ids (not coded): the folds / split are a keyed hash of it, "
                        "not of row positions; required for cross / split on a Parquet directory")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Parquet directory CSV: run on this dask scheduler (e.g. tcp://host:8786)")
    p.add_argument("--local-cluster", type=int, metavar="N",
                   help="a Parquet directory CSV: start N local dask worker processes for this run")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output CSV (a Parquet directory for a Parquet input): the input with each coded column "
                        "replaced by COL_impact")
    p.add_argument("--tables", metavar="TABLES.json",
                   help="also write the coding tables (each column's levels, codes and novel code: what "
                        "ImpactEncoder.coders_ releases, never counts); `privlearn impact-apply` codes new data with "
                        "them. With --epsilon they are the differentially private release")
    _record_arguments(p, "FILE.json")


@command("impact", help="impact-code categorical columns of a CSV file (winvector2015)",
         examples=["privlearn impact visits.csv --column city --label churned --out coded.csv",
                   "privlearn impact visits.csv --column city --label churned --classes no,yes --epsilon 1 \\\n"
                   "    --levels city=paris,lyon,nice,other --out coded.csv"],
         arguments=_impact_arguments, progress=True)
def cmd_impact(args) -> int:
    """Impact coding (winvector2015, fast.ImpactEncoder): each categorical column becomes a number, what the labels
    say about its level, computed for every row WITHOUT that row's own label (cross-frame by default), which is what
    a downstream model must be trained on. With --epsilon the coding tables are released with Laplace noise within
    the total epsilon over the PUBLIC --levels of each column and the PUBLIC label set --classes NEG,POS (a label
    equal to POS is positive, every other cell negative). The coded columns replace the raw ones in the output (split
    mode adds a model_row column: train only on the rows marked 1); text cells are made spreadsheet-safe."""
    import numpy as np

    from fast.estimators.impact import ImpactEncoder

    classes = parse_classes(args.classes) if args.classes is not None else None
    if args.epsilon is not None and classes is None:
        raise UsageError("--epsilon needs --classes NEG,POS: the label set is public input (reading it from the data "
                         "would let one record decide whether the release succeeds)")
    if classes is not None and args.positive is not None:
        raise UsageError("give --classes NEG,POS or --positive, not both (--classes declares the positive class)")
    if args.epsilon is not None and args.mode == "jackknife":
        raise UsageError("--mode jackknife is non-private only: with --epsilon each training row's code would subtract "
                         "its own exact label from the noisy table (not a private release); use --mode cross or split")
    record = plan_record(args, [("CSV", args.csv)], [("--out", args.out), ("--tables", args.tables)])
    if args.tables is not None and os.path.realpath(args.tables) == os.path.realpath(args.out):
        raise UsageError(f"--tables {args.tables} is the --out output: choose another path")
    parquet = Path(args.csv).is_dir()  # a Parquet directory: the dask branch (fast/_cli_dask.py)
    if not parquet and (args.row_id or args.scheduler or args.local_cluster):
        raise UsageError("--row-id, --scheduler and --local-cluster are for a Parquet directory input")
    header = None if parquet else _csv_header(args.csv)
    columns = list(dict.fromkeys(args.column))
    if args.label in columns:
        raise UsageError(f"the label column {args.label!r} cannot also be coded")
    levels = {}
    for item in args.levels or []:
        if "=" not in item:
            raise UsageError(f"--levels: expected COL=a,b,c, got {item!r}")
        col, vals = item.split("=", 1)
        if col not in columns:
            raise UsageError(f"--levels {item!r}: {col!r} is not a --column")
        levels[col] = _csv_list(vals, "--levels")
    if args.epsilon is not None and set(levels) != set(columns):
        missing = [c for c in columns if c not in levels]
        raise UsageError(f"--epsilon needs the PUBLIC levels of every coded column (--levels {missing[0]}=a,b,...): the "
                         "set of levels present in the data is itself private")
    if levels and set(levels) != set(columns):
        missing = [c for c in columns if c not in levels]
        raise UsageError(f"--levels must list the levels of every coded column or of none (none: the levels are read "
                         f"from the data, not private); missing --levels {missing[0]}=a,b,...")
    if parquet:
        from fast import _cli_dask

        return _cli_dask.impact_parquet(args, record=record, classes=classes, columns=columns, levels=levels)
    cols = read_csv(args.csv, header, progress=args)
    for c in [*columns, args.label]:
        if c not in cols:
            raise DataError(f"{args.csv}: no column {c!r}; the columns are {', '.join(repr(h) for h in header)}")
    if classes is None:  # not private: the two classes are read from the data
        y_pm1, classes = labels_pm1(args.csv, args.label, cols[args.label], args.positive)
    else:  # the declared pair: no label value can fail the command
        y_pm1 = declared_labels(cols[args.label], classes)
    y = (y_pm1 > 0).astype(np.int64)
    X = np.array([[v if v != "" else None for v in cols[c]] for c in columns], dtype=object).T
    kwargs = dict(mode=args.mode, random_state=args.seed, classes=(0, 1))  # y is 0 / 1 here
    if levels:  # the declared levels (required with --epsilon): a value outside them gets the novel code
        kwargs.update(categories=[levels[c] for c in columns])
    if args.epsilon is not None:
        kwargs.update(epsilon=args.epsilon)
    if levels and (args.diagnose or args.epsilon is None):
        # the custodian's diagnostic (NOT private): under --diagnose always, without --epsilon above the threshold
        from fast.preprocessing import PublicOrdinalEncoder, clipping_report

        levels_enc = PublicOrdinalEncoder(categories=[levels[c] for c in columns]).fit(X[:1])
        rep = clipping_report(levels_enc, X, threshold=1.0)
        rows = [{"column": c, "kind": "categorical", "rows": int(round(share * len(y))), "n": len(y),
                 "share": float(share), "what": "outside --levels (coded as novel)"}
                for c, share in zip(columns, rep["feature_share"])]
        print_diagnostics("impact", rows, private=args.diagnose)
    steps = progress_bar(args, 2, f"impact: coding ({args.mode})")
    enc = ImpactEncoder(**kwargs)
    codes = np.asarray(enc.fit_transform(X, y), dtype=float)
    steps.update()
    steps.set_description(f"impact: writing {Path(args.out).name}")
    keep = [h for h in header if h not in columns]
    out_header = keep + [f"{c}_impact" for c in columns]
    model_rows = getattr(enc, "model_rows_", None)
    if args.mode == "split" and model_rows is not None:
        out_header.append("model_row")
    records = [[neutralise_cell(h) for h in out_header]]
    for i in range(len(y)):
        row = [neutralise_cell(cols[h][i]) for h in keep] + ["" if np.isnan(v) else repr(float(v)) for v in codes[i]]
        if len(out_header) > len(row):
            row.append("1" if model_rows[i] else "0")
        records.append(row)
    spent = getattr(enc, "privacy_spent_", None)
    tables = impact_tables(enc, columns, label=args.label, classes=classes, mode=args.mode) \
        if args.tables is not None else None
    write_csv(args.out, records)
    if tables is not None:
        write_atomic(args.tables, json.dumps(_strict_json(tables), indent=2, allow_nan=False) + "\n")
    steps.update()
    steps.close()
    print(f"wrote {args.out}: {len(y)} rows, {len(columns)} coded column(s) ({args.mode}; positive class "
          f"{classes[1]!r})")
    if tables is not None:
        print(f"wrote {args.tables}: the coding tables of {len(columns)} column(s)"
              + ("" if spent is not None else " (NOT differentially private: no --epsilon)"))
    if spent is not None:
        print(f"privacy: the coding tables are ({spent.epsilon:.6g}, {spent.delta:.3g})-DP ({spent.neighbouring}); "
              f"the output file also holds your other columns and labels: it is for your own training, not a release")
        novel = ", ".join(f"{c}: {float(np.ravel(enc.coders_[j].default)[0]):g}" for j, c in enumerate(columns))
        print(f"note: a value outside --levels (an empty cell too, unless declared) gets its column's novel code "
              f"({novel}), like a level with no data; --diagnose prints the share of such rows per column (NOT "
              f"private)")
        for c, a in zip(columns, enc.accuracy_):
            print(f"accuracy: {c}: each released count is within +-{a['cell_accuracy_95']:.3g} of the true count "
                  f"with probability 0.95 (Laplace scale {a['laplace_scale']:.3g}); the coder's counts within "
                  f"+-{a['coder_accuracy_95']:.3g}, against {a['mean_level_count']:.3g} rows per declared level on "
                  f"average")
        from fast.estimators.impact import ImpactNoiseWarning, warn_if_mostly_noise
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ImpactNoiseWarning)
            warn_if_mostly_noise([{**a, "column": c} for c, a in zip(columns, enc.accuracy_)])
        for w in caught:  # public quantities only: part of the report on standard output (stderr stays quiet)
            print(f"warning: {w.message}")
    else:
        print("privacy: none (no --epsilon): the codes are out-of-fold, not differentially private")
    write_record(args, record, outputs=[args.out] + ([args.tables] if tables is not None else []),
                 privacy_spent=spent_record(spent),
                 results={"columns": columns, "accuracy": None if spent is None else enc.accuracy_})
    return EXIT_OK


# --------------------------------------------------------------------------- models and tables: predict, score, apply


def impact_tables(enc, columns: list[str], *, label: str, classes, mode: str) -> dict:
    """The coding tables of a fitted :class:`fast.ImpactEncoder` as the JSON object ``impact --tables`` writes.

    Only what ``coders_`` releases is written: each column's levels (``levels_``, a missing level as null), the code
    of each level (``coders_[j].code``) and the code of a novel level (``coders_[j].default``); never the counts,
    p-values or which levels were kept (without ``--epsilon`` the codes themselves are exact functions of the data,
    and the file says so: ``privacy`` is null).  With ``--epsilon``, ``accuracy`` is ``ImpactEncoder.accuracy_``:
    the noise of the released counts against an average declared level, from public quantities only.

    Parameters
    ----------
    enc : fast.ImpactEncoder
        Fitted.
    columns : list of str
        The coded columns, in the encoder's order.
    label : str
        The label column.
    classes : (str, str)
        ``(negative, positive)``.
    mode : str
        The coding mode of the fit (recorded only).

    Returns
    -------
    dict
    """
    import numpy as np

    spent = getattr(enc, "privacy_spent_", None)
    out = []
    for j, name in enumerate(columns):
        coder = enc.coders_[j]
        out.append({"name": name, "levels": [None if lv is None else str(lv) for lv in enc.levels_[j]],
                    "code": np.asarray(coder.code, dtype=float).tolist(),
                    "default": np.asarray(coder.default, dtype=float).ravel().tolist()})
    return {"format": TABLES_FORMAT, "privlearn": _version(), "label": label,
            "labels": {"0": classes[0], "1": classes[1]}, "mode": mode,
            "novel": "a level not in a column's levels (an empty cell too, unless null is a level) gets its default",
            "privacy": spent_record(spent), "columns": out,
            # the noise of each released count against an average level, from public quantities (issue 28 item 6)
            "accuracy": getattr(enc, "accuracy_", None) if spent is not None else None}


def _load_json(path: str, what: str):
    p = Path(path)
    if not p.is_file():
        raise DataError(f"{path}: no such file")
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a {what} (not a JSON file: {exc})") from None


def _number_matrix(path: str, field: str, value, rows: int | None = None, cols: int | None = None):
    import numpy as np

    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 2 or (rows is not None and arr.shape[0] != rows) or \
            (cols is not None and arr.shape[1] != cols) or np.isnan(arr).any():
        raise DataError(f"{path}: damaged field {field!r} (expected a table of numbers"
                        f"{'' if rows is None else f' with {rows} rows'}{'' if cols is None else f' of {cols}'})")
    return arr


def read_tables(path: str) -> dict:
    """Read the coding tables written by ``privlearn impact --tables``.

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        The file's object; each column's ``code`` is a float array of shape (n_levels, k), ``default`` of shape
        (k,).

    Raises
    ------
    DataError
        No such file, not JSON, another ``format`` (another kind of file or a version this privlearn does not know:
        exit 3), or damaged tables.
    """
    obj = _load_json(path, "coding tables file")
    fmt = obj.get("format") if isinstance(obj, dict) else None
    if fmt != TABLES_FORMAT:
        raise DataError(f"{path}: not coding tables this privlearn can read: its format is {fmt!r}, expected "
                        f"{TABLES_FORMAT!r} (written by `privlearn impact --tables`)")
    columns = obj.get("columns")
    if not isinstance(columns, list) or not columns:
        raise DataError(f"{path}: damaged coding tables (no columns)")
    for c in columns:
        if not (isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("levels"), list)
                and all(v is None or isinstance(v, str) for v in c["levels"])):
            raise DataError(f"{path}: damaged coding tables (a column without a name or levels)")
        c["code"] = _number_matrix(path, f"columns.{c['name']}.code", c.get("code"), rows=len(c["levels"]))
        c["default"] = _number_matrix(path, f"columns.{c['name']}.default", [c.get("default")],
                                      cols=c["code"].shape[1])[0]
        if len(set(c["levels"])) != len(c["levels"]):
            raise DataError(f"{path}: damaged coding tables (column {c['name']!r} lists a level twice)")
    if len({c["name"] for c in columns}) != len(columns):
        raise DataError(f"{path}: damaged coding tables (a column appears twice)")
    obj["columns"] = columns
    return obj


def apply_tables(column: dict, cells: list[str]):
    """Code the cells of one column with its table: the level's code, the ``default`` row for a level not in the
    table (an empty cell is the missing level, null in ``levels``, when the table has one; else novel).

    Parameters
    ----------
    column : dict
        One entry of :func:`read_tables`'s ``columns``.
    cells : list of str

    Returns
    -------
    numpy.ndarray of shape (len(cells), k)
    """
    import numpy as np

    index = {lv: i for i, lv in enumerate(column["levels"])}
    idx = np.array([index.get(None if v == "" else v, -1) for v in cells], dtype=np.int64)
    return np.where((idx >= 0)[:, None], column["code"][np.maximum(idx, 0)], column["default"][None, :])


def read_model(path: str) -> dict:
    """Read a model written by ``privlearn fit-rados --out`` or ``privlearn boost --out``.

    Parameters
    ----------
    path : str

    Returns
    -------
    dict
        The file's object, checked: ``kind`` ("radoboost-linear" or "private-boost"), ``features``, ``labels``
        (``{"-1": NEG, "+1": POS}``) and the fields its kind needs.

    Raises
    ------
    DataError
        No such file, not JSON, another ``format`` or ``kind`` (a file of another kind, or written by a privlearn
        whose model format this one does not know, e.g. before format 1: exit 3, re-run fit-rados / boost), or a
        damaged model.
    """
    import numpy as np

    obj = _load_json(path, "model file")
    fmt = obj.get("format") if isinstance(obj, dict) else None
    if fmt != MODEL_FORMAT:
        raise DataError(f"{path}: not a model this privlearn can read: its format is {fmt!r}, expected "
                        f"{MODEL_FORMAT!r} (written by `privlearn fit-rados --out` or `privlearn boost --out`; a model "
                        f"written by an older privlearn has no format: fit it again)")
    kind = obj.get("kind")
    if kind not in ("radoboost-linear", "private-boost"):
        raise DataError(f"{path}: unknown model kind {kind!r} (this privlearn reads 'radoboost-linear' and "
                        f"'private-boost')")
    features, labels = obj.get("features"), obj.get("labels")
    if not (isinstance(features, list) and features and all(isinstance(f, str) for f in features)
            and len(set(features)) == len(features)):
        raise DataError(f"{path}: damaged model (features must be a list of distinct names)")
    if not (isinstance(labels, dict) and isinstance(labels.get("-1"), str) and isinstance(labels.get("+1"), str)):
        raise DataError(f"{path}: damaged model (labels must be {{\"-1\": NEG, \"+1\": POS}})")
    if kind == "radoboost-linear":
        theta, bounds, sensitive = obj.get("theta"), obj.get("bounds"), obj.get("sensitive")
        if not (isinstance(theta, dict) and list(theta) == features):
            raise DataError(f"{path}: damaged model (theta must hold one coefficient per feature, in order)")
        obj["theta"] = dict(zip(features, _number_matrix(path, "theta", [list(theta.values())],
                                                         cols=len(features))[0]))
        if obj.get("preprocessing") is not None:  # format 2 rados: the columns' public preprocessing
            spec = _check_spec(path, obj["preprocessing"])
            if spec["features"] != features:
                raise DataError(f"{path}: damaged model (the preprocessing's features differ from the model's)")
            return obj
        scaled = [f for f in features if f != sensitive]
        if not (isinstance(bounds, dict) and sorted(bounds) == sorted(scaled)):
            raise DataError(f"{path}: damaged model (bounds must give the public range of every feature but the "
                            f"sensitive one)")
        b = _number_matrix(path, "bounds", [bounds[f] for f in scaled], cols=2) if scaled else np.empty((0, 2))
        if not (np.isfinite(b).all() and (b[:, 0] < b[:, 1]).all()):
            raise DataError(f"{path}: damaged model (bounds must be finite LO < HI)")
        obj["bounds"] = {f: (float(lo), float(hi)) for f, (lo, hi) in zip(scaled, b)}
    else:
        params = obj.get("params")
        if not isinstance(params, dict) or params.get("weak_learner") not in ("halfspace", "stump"):
            raise DataError(f"{path}: damaged model (params.weak_learner must be 'halfspace' or 'stump')")
        d = len(features)
        if params["weak_learner"] == "halfspace":
            h = _number_matrix(path, "hypotheses", obj.get("hypotheses"), cols=d)
            norm = params.get("data_norm")
            if not (isinstance(norm, (int, float)) and math.isfinite(norm) and norm > 0):
                raise DataError(f"{path}: damaged model (params.data_norm must be a finite number > 0)")
        else:
            h = _number_matrix(path, "hypotheses", obj.get("hypotheses"), cols=3)
            b = _number_matrix(path, "params.bounds", params.get("bounds"), rows=2, cols=d)
            if not (np.isfinite(b).all() and (b[0] < b[1]).all()) or \
                    not ((h[:, 0] >= 0) & (h[:, 0] < d) & (h[:, 0] == np.floor(h[:, 0]))).all():
                raise DataError(f"{path}: damaged model (stump bounds or feature indices out of range)")
        if h.shape[0] == 0:
            raise DataError(f"{path}: damaged model (no hypotheses)")
        obj["hypotheses"] = h
        if obj.get("preprocessing") is not None:
            spec = _check_spec(path, obj["preprocessing"])
            if spec["features"] != features:
                raise DataError(f"{path}: damaged model (the preprocessing's features differ from the model's)")
    return obj


def boost_estimator(model: dict):
    """The fitted :class:`fast.PrivateBoostClassifier` a ``private-boost`` model file describes (classes -1 / +1):
    its ``decision_function`` / ``predict`` are the estimator's own, with the fit's public domain (``data_norm`` or
    ``bounds``) applied to new rows exactly as in the fit.

    Parameters
    ----------
    model : dict
        From :func:`read_model`.

    Returns
    -------
    fast.PrivateBoostClassifier
    """
    import numpy as np

    from fast import PrivateBoostClassifier

    params = model["params"]
    d = len(model["features"])
    if params["weak_learner"] == "halfspace":
        clf = PrivateBoostClassifier(weak_learner="halfspace", data_norm=float(params["data_norm"]), classes=(-1, 1))
        clf.data_norm_ = float(params["data_norm"])
    else:
        lo, hi = (np.asarray(v, dtype=float) for v in params["bounds"])
        clf = PrivateBoostClassifier(weak_learner="stump", bounds=(lo, hi), classes=(-1, 1))
        clf.bounds_ = (lo, hi)
    clf.classes_ = np.array([-1, 1])
    clf.hypotheses_ = np.asarray(model["hypotheses"], dtype=float)
    clf.n_features_in_ = d
    return clf


def model_scores(model: dict, X):
    """The model's score of each row of X (columns in ``model["features"]`` order): a positive score predicts the
    label recorded as +1, anything else the one recorded as -1 (the estimators' rule: a tie goes to the negative).

    radoboost-linear: ``sum_j theta_j s_j(x)`` with ``s_j`` the public-bounds scaling of the rados release
    (:func:`scale_to_unit`; the DP-Feat sensitive column as +1 where > 0, else -1).  private-boost: the estimator's
    ``decision_function`` (:func:`boost_estimator`).

    Parameters
    ----------
    model : dict
        From :func:`read_model`.
    X : numpy.ndarray of shape (m, d)

    Returns
    -------
    numpy.ndarray of shape (m,)
    """
    import numpy as np

    if model["kind"] == "private-boost":
        return boost_estimator(model).decision_function(X)
    features = model["features"]
    if model.get("preprocessing") is not None:  # X is apply_preprocessing's output: the features the rados summed
        return np.asarray(X, dtype=float) @ np.array([model["theta"][f] for f in features])
    S = np.empty_like(X, dtype=float)
    for j, f in enumerate(features):
        if f == model.get("sensitive"):
            S[:, j] = np.where(X[:, j] > 0, 1.0, -1.0)
        else:
            S[:, j] = scale_to_unit(X[:, [j]], [model["bounds"][f]])[:, 0]
    return S @ np.array([model["theta"][f] for f in features])


def _model_rows(args):
    """Model, the feature matrix of DATA (columns looked up by name; finite numbers, as every non-private command),
    the scores and the predicted labels."""
    import numpy as np

    model = read_model(args.model)
    features = model["features"]
    spec = model.get("preprocessing")
    inputs = [c["name"] for c in spec["columns"]] if spec is not None else features
    label = getattr(args, "label", None)
    wanted = list(dict.fromkeys([*inputs, *([label] if label else [])]))
    cols = read_csv(args.csv, wanted, progress=args)
    if spec is not None:  # the fit's public preprocessing, applied identically (non-private: finite numbers only)
        X = apply_preprocessing(spec, cols, private=False, path=args.csv)
        print_diagnostics(args.command, preprocessing_diagnostics(spec, cols, private=False, path=args.csv),
                          private=False)
    else:
        X = np.column_stack([numeric(args.csv, f, cols[f]) for f in features])
    scores = model_scores(model, X)
    labels = model["labels"]
    predicted = [labels["+1"] if s > 0 else labels["-1"] for s in scores]
    return model, cols, scores, predicted


def _predict_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL.json", help="a model written by `fit-rados --out` or `boost --out`")
    p.add_argument("csv", metavar="DATA.csv", help="the rows to predict: a CSV file with the model's feature columns")
    p.add_argument("--out", metavar="PRED.csv",
                   help="write the predictions here (default: standard output): columns score, prediction")
    _record_arguments(p, "PRED.csv.json with --out")


@command("predict", help="predict labels of a CSV file with a model written by fit-rados or boost",
         examples=["privlearn predict model.json new.csv --out predictions.csv",
                   "privlearn predict model.json new.csv"],
         arguments=_predict_arguments, progress=True)
def cmd_predict(args) -> int:
    """Apply a model written by `privlearn fit-rados --out` (RadoBoost, linear) or `privlearn boost --out` (private
    boosting) to the rows of a CSV file. The model's features are looked up by name (other columns are ignored) and
    must hold finite numbers; the public preprocessing of the fit is applied as recorded in the model (the rados'
    bounds scaling, the boosting's data_norm clipping or stump bounds). Writes one row per input row, in order:
    score (positive predicts the +1 label) and prediction (the model's declared label, spreadsheet-safe). Using a
    released model costs no privacy."""
    record = plan_record(args, [("MODEL", args.model), ("DATA", args.csv)], [("--out", args.out)])
    model, _, scores, predicted = _model_rows(args)
    rows = [["score", "prediction"]] + [[repr(float(s)), neutralise_cell(p)] for s, p in zip(scores, predicted)]
    if args.out:
        write_csv(args.out, rows)
        print(f"wrote {args.out}: {len(predicted)} predictions ({model['kind']} model)")
    else:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        sys.stdout.write(buffer.getvalue())
    write_record(args, record, outputs=[args.out] if args.out else [], privacy_spent=None,
                 results={"rows": len(predicted), "model_kind": model["kind"], "model_privacy": model.get("privacy")})
    return EXIT_OK


def _score_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL.json", help="a model written by `fit-rados --out` or `boost --out`")
    p.add_argument("csv", metavar="DATA.csv", help="labelled rows: the model's feature columns and --label")
    p.add_argument("--label", required=True, metavar="COL",
                   help="the label column: a cell equal to the model's +1 label is positive, every other cell "
                        "negative (the rule of the fit)")
    _record_arguments(p, None)


@command("score", help="the accuracy of a model written by fit-rados or boost on a labelled CSV file",
         examples=["privlearn score model.json test.csv --label outcome",
                   "privlearn score model.json test.csv --label outcome --record score.json"],
         arguments=_score_arguments, progress=True)
def cmd_score(args) -> int:
    """The accuracy of a model written by `privlearn fit-rados --out` or `privlearn boost --out` on labelled rows:
    the predictions of `privlearn predict` against --label, read with the model's declared label pair as the fit
    read it (a cell equal to the +1 label is positive, every other cell negative; how many cells are neither
    declared label is printed). Prints the accuracy; --record PATH also writes it (with the run's record)."""
    import numpy as np

    record = plan_record(args, [("MODEL", args.model), ("DATA", args.csv)], [])
    model, cols, scores, _ = _model_rows(args)
    labels = model["labels"]
    y = declared_labels(cols[args.label], (labels["-1"], labels["+1"]))
    pred = np.where(scores > 0, 1, -1)
    accuracy = float(np.mean(pred == y))
    neg = _label_key(labels["-1"])
    other = sum(1 for v, t in zip(cols[args.label], y) if t < 0 and _label_key(v) != neg)
    print(f"accuracy: {accuracy:.6g} ({int(np.sum(pred == y))} of {len(y)} rows; {model['kind']} model)")
    if other:
        print(f"note: {other} label cell(s) are neither {labels['-1']!r} nor {labels['+1']!r}: counted as "
              f"{labels['-1']!r}")
    write_record(args, record, outputs=[], privacy_spent=None,
                 results={"accuracy": accuracy, "rows": len(y), "correct": int(np.sum(pred == y)),
                          "other_labels": other, "model_kind": model["kind"], "model_privacy": model.get("privacy")})
    return EXIT_OK


def _impact_apply_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("tables", metavar="TABLES.json", help="coding tables written by `privlearn impact --tables`")
    p.add_argument("csv", metavar="DATA.csv", help="the rows to code: a CSV file with the tables' columns")
    p.add_argument("--out", required=True, metavar="CODED.csv",
                   help="output CSV: the input with each coded column replaced by COL_impact")
    _record_arguments(p, "CODED.csv.json")


@command("impact-apply", help="impact-code a CSV file with the tables written by impact --tables",
         examples=["privlearn impact-apply tables.json new.csv --out coded.csv"],
         arguments=_impact_apply_arguments, progress=True)
def cmd_impact_apply(args) -> int:
    """Code new rows with released coding tables (`privlearn impact --tables`): each level gets its code in the
    table, a level not in the table (and an empty cell, unless the table has the missing level) the column's novel
    code (0 for the Bayes code), never an error; the same as ImpactEncoder.transform with the fitted coders. The
    coded columns replace the raw ones (COL_impact, last), other columns are kept; text cells are made
    spreadsheet-safe. Coding with released tables costs no privacy."""
    import numpy as np

    record = plan_record(args, [("TABLES", args.tables), ("DATA", args.csv)], [("--out", args.out)])
    tables = read_tables(args.tables)
    header = _csv_header(args.csv)
    columns = [c["name"] for c in tables["columns"]]
    cols = read_csv(args.csv, header, progress=args)
    missing = [c for c in columns if c not in cols]
    if missing:
        raise DataError(f"{args.csv}: no column {', '.join(map(repr, missing))}; the columns are "
                        f"{', '.join(repr(h) for h in header)}")
    coded = [apply_tables(c, cols[c["name"]]) for c in tables["columns"]]
    unknown = []  # not private (no release here): warned by default above the threshold
    for c in tables["columns"]:
        known = set(c["levels"])
        rows = sum(1 for v in cols[c["name"]] if (None if v == "" else v) not in known)
        unknown.append({"column": c["name"], "kind": "categorical", "rows": rows, "n": len(cols[c["name"]]),
                        "share": rows / max(1, len(cols[c["name"]])), "what": "not a level of the table (novel code)"})
    print_diagnostics("impact-apply", unknown, private=False)
    keep = [h for h in header if h not in columns]
    names = []
    for c, block in zip(columns, coded):
        names += [f"{c}_impact"] if block.shape[1] == 1 else [f"{c}_impact_{k}" for k in range(block.shape[1])]
    codes = np.hstack(coded)
    n = codes.shape[0]
    records = [[neutralise_cell(h) for h in keep + names]]
    records += [[neutralise_cell(cols[h][i]) for h in keep] + [repr(float(v)) for v in codes[i]] for i in range(n)]
    write_csv(args.out, records)
    print(f"wrote {args.out}: {n} rows, {len(columns)} coded column(s)")
    write_record(args, record, outputs=[args.out], privacy_spent=None,
                 results={"rows": n, "columns": columns, "tables_privacy": tables.get("privacy")})
    return EXIT_OK


def _report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true", help="include the slow checks")
    p.add_argument("--no-run", action="store_true", help="write the report from the registry without running checks")
    p.add_argument("--out", metavar="FILE", help="Markdown output (default report/claims.md)")
    p.add_argument("--html", metavar="FILE", help="HTML output (default: index.html beside the Markdown)")


def _auditor_spec_module(name: str):
    """``spec.<name>`` of THIS distribution (the claim registry and the auditor's report ship as the top-level
    package ``spec`` beside ``fast``).  The rest of ``fast`` never imports ``spec`` (issue 28: a project may have its
    own); when the name ``spec`` resolves to another package (e.g. the current directory's ``spec/`` on
    ``sys.path``), this raises :class:`UsageError` saying so instead of running someone else's code."""
    import importlib
    import importlib.util

    ours = Path(__file__).resolve().parent.parent / "spec"
    loaded = sys.modules.get("spec")
    try:
        found = loaded.__spec__ if loaded is not None else importlib.util.find_spec("spec")
    except (ImportError, ValueError):
        found = None
    where = [Path(d).resolve() for d in (found.submodule_search_locations or [])] if found is not None else []
    if where != [ours]:
        seen = ", ".join(map(str, where)) or (found.origin if found is not None else "nothing")
        raise UsageError(f"this command needs privlearn's own 'spec' package ({ours}), but the name 'spec' resolves "
                         f"to {seen}: a package of the current project shadows it; run it from a directory without "
                         f"its own spec/ (and without it on PYTHONPATH)")
    return importlib.import_module(f"spec.{name}")


@command("report", help="the auditor's report: every claim of the papers, its verdict and evidence",
         examples=["privlearn report", "privlearn report --no-run --out /tmp/claims.md"],
         arguments=_report_arguments)
def cmd_report(args) -> int:
    """Run the registered checks of every claim (from a source checkout) and write report/claims.md and
    report/index.html (the same as `python -m spec report`). From an installed package the checks are not on disk:
    the report is built from the shipped registry and says so."""
    report = _auditor_spec_module("report")
    return report.main(out=args.out, html=args.html, run=not args.no_run, include_slow=args.all)


def _check_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("claim_ids", nargs="+", metavar="CLAIM_ID", help="registered claim ids (e.g. nock2015.lemma2)")
    p.add_argument("--slow", action="store_true", help="run the checks marked slow too (else: skipped: slow)")


@command("check", help="run the checks of the given claims and print each check's verdict",
         examples=["privlearn check nock2015.lemma2", "privlearn check bun2020.def3 winvector2015.exp.laplace --slow"],
         arguments=_check_arguments)
def cmd_check(args) -> int:
    """Run exactly the registered checks of the given claims (from a source checkout; the same as
    `python -m spec check`) and print, per check: claim id, pytest node id, verdict (passed; failed with the
    failing items' errors; skipped with the reason) and duration. Checks marked slow run with --slow; without it
    they are listed as skipped: slow. Exit 1 if a check failed, 2 for an unknown claim id."""
    report = _auditor_spec_module("report")
    return report.check(args.claim_ids, include_slow=args.slow)


@command("warmup", help="compile ahead: fill numba's on-disk cache for every compiled kernel (once, after install)",
         examples=["privlearn warmup"],
         arguments=lambda p: None)
def cmd_warmup(args) -> int:
    """Call each numba-backed entry point of the library once on a tiny input, so that the first real call of a
    process loads compiled code from numba's cache instead of compiling it (1-30 s per entry point cold, well under a
    second warm; docs/performance.md). Prints the time per entry point and where the cache is; fails (exit 1) when
    an entry point raises or a kernel has no cache entry afterwards. The cache goes to NUMBA_CACHE_DIR when set,
    else beside the installed sources when writable, else to numba's per-user cache (~/.cache/numba); numba reads a
    cache only from a directory it could write to, so each user runs it once."""
    from fast import _warmup

    return EXIT_OK if _warmup.main([]) == 0 else EXIT_REPORT_FAILED


# --------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    """The ``privlearn`` parser, one subparser per entry of :data:`COMMANDS` (help, examples, exit codes).

    Returns
    -------
    argparse.ArgumentParser
    """
    codes = "\n".join(f"  {k}  {v}" for k, v in EXIT_CODES.items())
    examples = "\n".join(f"  {e}" for c in COMMANDS.values() for e in c.examples[:1])
    parser = argparse.ArgumentParser(
        prog="privlearn", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Privacy-preserving learning from five research papers: private rados, private causal "
                    "direction, and the auditor's report of every claim.",
        epilog=f"examples:\n{examples}\n\nexit codes:\n{codes}\n\n`privlearn COMMAND --help` for one command.")
    parser.add_argument("--version", action="version", version=f"privlearn {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for c in COMMANDS.values():
        p = sub.add_parser(c.name, help=c.help, description=c.description,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog="examples:\n" + "\n".join(f"  {e}" for e in c.examples) + f"\n\nexit codes:\n{codes}")
        c.arguments(p)
        if c.progress:
            _progress_arguments(p)
    return parser


_RANGE_OPTIONS = ("--bounds", "--x-bounds", "--y-bounds")


def _join_negative_ranges(argv: list[str]) -> list[str]:
    """'--bounds -4:4' -> '--bounds=-4:4' (argparse would read '-4:4' as an option)."""
    import re

    out, i = [], 0
    while i < len(argv):
        tok = argv[i]
        if tok in _RANGE_OPTIONS and i + 1 < len(argv) and re.match(r"^-[0-9.]", argv[i + 1]):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def _check_budget_first(args) -> None:
    """Refuse a void privacy budget (epsilon not finite > 0, delta outside [0, 1)) before any file is read."""
    from fast._contracts.privacy_contract import check_total_budget

    if getattr(args, "epsilon", None) is not None:
        delta = getattr(args, "delta", None)
        check_total_budget(args.epsilon, 0.0 if delta is None else delta)


def main(argv=None) -> int:
    """Run ``privlearn`` (the console script's entry point).

    Parameters
    ----------
    argv : list of str or None, default=None
        The arguments after the program name; None reads ``sys.argv``.

    Returns
    -------
    int
        The exit code (:data:`EXIT_CODES`): 0 success, 1 a failing report, 2 usage, 3 bad data, 4 refused,
        5 a missing package.
        argparse itself exits with 2 on a bad option and 0 on ``--help``.

    Examples
    --------
    >>> main(["rados", "missing.csv", "--label", "y", "--classes", "0,1", "--epsilon", "1", "--bounds", "0:1",
    ...       "--out", "r.csv"])
    3
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(_join_negative_ranges(argv))
    args.argv_ = argv  # for the record of the run (write_record)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        _check_budget_first(args)
        return COMMANDS[args.command].run(args)
    except UsageError as exc:
        print(f"privlearn {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DataError as exc:
        print(f"privlearn {args.command}: bad input: {exc}", file=sys.stderr)
        return EXIT_DATA
    except ModuleNotFoundError as exc:
        print(f"privlearn {args.command}: needs the package {exc.name!r}, which is not installed "
              f"(pip install {exc.name})", file=sys.stderr)
        return EXIT_MISSING
    except (ValueError, TypeError, RuntimeError) as exc:
        print(f"privlearn {args.command}: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
