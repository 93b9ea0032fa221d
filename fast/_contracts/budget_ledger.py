"""The budget ledgers shared by ``reference.accounting`` and ``fast.accounting`` (one definition: the ledger is
bookkeeping in exact fractions, the same in both packages; each package binds its own zCDP conversions).

* :class:`BudgetAccountant`: (epsilon, delta) under basic composition (Dwork-Roth Thm 3.16), totals as exact
  fractions.  The mechanisms charge what they DELIVER (``charge``): the Laplace mechanism its exact D/t (an integer
  ratio, so ten releases asked at epsilon = 0.1 cost exactly 1), the Gaussian the (epsilon, delta) its grid was
  calibrated for.  A charge that would exceed the budget raises :class:`BudgetExceeded` and records nothing.
* :class:`ZCDPAccountant`: rho-zCDP charges add (bun2020 Lemma 14); the budget is an (epsilon, delta) target,
  whose rho is the largest with the tight conversion (CKS20 Prop. 12) within epsilon; a pure epsilon-DP charge
  costs epsilon^2 / 2 (Bun-Steinke 2016 Prop. 1.4).

Both have the same surface (``check``, ``spend``, ``charge``, ``remaining``, ``split``, a decimal ``repr``): the
(epsilon, delta) ledger in :class:`Budget` objects, the zCDP ledger in :class:`RhoBudget` objects (an exact Fraction
that prints in decimals).  Each accepts the parts its ``split`` returns; the exact fractions stay available.

Concurrency (issue 25).  A ledger is one budget: every release it authorises must be recorded on it, whoever makes
the release.

* **Threads.**  Check-and-record is atomic: ``spend`` / ``charge`` hold the ledger's ``threading.RLock`` from the
  moment the totals are read until the charge is appended, so two threads can never both pass the check on the
  same remainder (the old ledger let 16 threads spending 1/20 each overspend a budget of 1 in 4 of 20 trials, and
  lose updates in 2), and every read (``remaining``, ``split``, the totals, ``repr``) sees a consistent state.  A
  re-entrant lock, so a subclass's ``charge`` may call ``spend`` under it.
* **Processes.**  An in-memory ledger cannot follow a fit into another process: joblib (loky) and
  ``multiprocessing`` pickle the arguments, so ``cross_validate(..., n_jobs=2, params={"accountant": acc})``
  charged a copy in each worker and the user's ledger still showed 0 spent.  Two designs were possible (a manager
  process, or a file); we keep both options honest:

  - pickling, ``copy`` or ``deepcopy`` of an in-memory ledger raises :class:`LedgerNotShared` naming the fix, and an
    in-memory ledger charged in a process other than its creator's (a ``fork`` child that inherited it) raises
    it too: charges are never silently lost;
  - ``BudgetAccountant(epsilon, delta, path="ledger.txt")`` (and ``ZCDPAccountant(..., path=...)``) is a
    FILE-BACKED ledger: the exact fractions are written as integers in text (one header line, one line a charge,
    append-only), and check-and-append runs under ``fcntl.flock`` (an exclusive lock on the file, taken on a
    descriptor opened for that one operation, so threads, forked children and separate processes all exclude
    each other) as well as the RLock.  It pickles (and copies) as its path: a loky / ``multiprocessing`` worker
    unpickles a handle on the same file and its charges land on the user's ledger, with the same exact
    arithmetic.  :meth:`BudgetAccountant.open` opens an existing file.  A manager process was rejected: it dies
    with its parent, needs a proxy per worker, and a proxy pickles to a process that may not reach it (spawned
    loky workers outlive the call); a file needs nothing running.

  A file ledger survives a crashed process (the kernel keeps written data) but is not ``fsync``-ed (one charge
  costs ~20 us, not a disk flush): after a power loss the last charges may be gone.  A truncated or replaced file,
  or a line that does not parse, is refused (ValueError): the ledger fails closed.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import os
import re
import threading
import weakref
from dataclasses import dataclass
from fractions import Fraction

from fast._contracts.validation import check_int, scalar_of

__all__ = ["Budget", "RhoBudget", "BudgetExceeded", "LedgerNotShared", "BudgetAccountant", "ZCDPAccountant", "split",
           "as_fraction", "calibration_float"]


def calibration_float(value):
    """The double a mechanism calibrates with: a Fraction (e.g. a part of ``split``) is rounded DOWN, so the
    guarantee delivered is within the Fraction and k parts of a split never overspend; anything else unchanged
    (validated by the mechanism)."""
    if isinstance(value, Fraction):
        f = float(value)
        return f if Fraction(f) <= value else math.nextafter(f, -math.inf)
    return value


def _decimal(q: Fraction) -> str:
    """A readable decimal (12 significant digits) of an exact fraction; exact integers print as such."""
    if q.denominator == 1:
        return str(q.numerator)
    return f"{float(q):.12g}"


@dataclass(frozen=True)
class Budget:
    """An (epsilon, delta) budget held exactly (fractions).  ``repr`` prints decimals; ``epsilon`` and ``delta``
    are the exact :class:`fractions.Fraction` values.

    Parameters
    ----------
    epsilon : fractions.Fraction
        The epsilon (>= 0).
    delta : fractions.Fraction
        The delta in [0, 1].

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import Budget
    >>> Budget(Fraction(1, 2), Fraction(0))
    Budget(epsilon=0.5, delta=0)
    """

    epsilon: Fraction
    delta: Fraction

    def __repr__(self) -> str:
        return f"Budget(epsilon={_decimal(self.epsilon)}, delta={_decimal(self.delta)})"

    __str__ = __repr__

    def as_floats(self) -> tuple[float, float]:
        """(epsilon, delta) as floats (rounded to nearest: use the fractions for exact bookkeeping).

        Returns
        -------
        tuple of float
            (epsilon, delta) as floats.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import Budget
        >>> Budget(Fraction(1, 4), Fraction(0)).as_floats()
        (0.25, 0.0)
        """
        return float(self.epsilon), float(self.delta)


class RhoBudget(Fraction):
    """A rho (zCDP) budget or charge held exactly: a :class:`fractions.Fraction` that prints in decimals.

    What :class:`ZCDPAccountant` returns (``remaining()``, ``remaining_rho()``, ``split``, ``spend``) and accepts
    (``spend(part)``), as :class:`Budget` is for :class:`BudgetAccountant`: ``repr`` prints a 12-digit decimal, the
    value itself is exact (it IS a Fraction: arithmetic, comparisons and ``float()`` work as on the Fraction) and
    ``rho`` is the exact value as a plain Fraction.

    Parameters
    ----------
    rho : float, int or Fraction
        The rho (finite, >= 0), taken exactly (a float as the exact value of the double).
    denominator : int, optional
        With an integer ``rho``: the Fraction rho / denominator.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import RhoBudget
    >>> RhoBudget(Fraction(1, 3))
    RhoBudget(rho=0.333333333333)
    >>> RhoBudget(Fraction(1, 3)).rho
    Fraction(1, 3)
    """

    def __new__(cls, rho, denominator=None):
        q = as_fraction(rho if denominator is None else Fraction(rho, denominator), "rho")
        return super().__new__(cls, q.numerator, q.denominator)

    @property
    def rho(self) -> Fraction:
        """The exact value, as a plain :class:`fractions.Fraction`."""
        return Fraction(self.numerator, self.denominator)

    def as_float(self) -> float:
        """rho as a float (rounded to nearest: use the fraction for exact bookkeeping).

        Returns
        -------
        float
            rho as a float.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import RhoBudget
        >>> RhoBudget(Fraction(1, 4)).as_float()
        0.25
        """
        return float(self)

    def __repr__(self) -> str:
        return f"RhoBudget(rho={_decimal(self)})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (self.numerator, self.denominator))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class BudgetExceeded(ValueError):
    """A spend would exceed the budget; nothing was spent (the caller must not draw noise).

    A subclass of ValueError, raised by :meth:`BudgetAccountant.spend` / ``charge`` and the zCDP ledger.

    Examples
    --------
    >>> from fast.accounting import BudgetAccountant, BudgetExceeded
    >>> acc = BudgetAccountant(1.0)
    >>> try:
    ...     acc.spend(2.0)
    ... except BudgetExceeded as exc:
    ...     print(exc)
    epsilon budget exceeded: spent 0 + 2 > 1
    """


class LedgerNotShared(TypeError):
    """An in-memory ledger was pickled, copied or charged in another process: its charges would be lost.

    A ledger is one budget.  A pickled or copied in-memory ledger (what joblib / loky and ``multiprocessing`` send
    to their workers, e.g. ``cross_validate(..., n_jobs=2, params={"accountant": acc})``) would be charged in the
    copy while the original keeps authorising releases.  The fix: a file-backed ledger every process charges
    (``BudgetAccountant(epsilon, delta, path="ledger.txt")``), or one process (``n_jobs=1``, or joblib's
    ``threading`` backend).  A subclass of TypeError (the object cannot be used that way).

    Examples
    --------
    >>> import pickle
    >>> from fast.accounting import BudgetAccountant, LedgerNotShared
    >>> try:
    ...     pickle.dumps(BudgetAccountant(1.0))
    ... except LedgerNotShared as exc:
    ...     print(str(exc)[:60])
    BudgetAccountant is an in-memory ledger: a pickled copy (wha
    """


def as_fraction(value, name: str, *, upper=None, upper_name="") -> Fraction:
    """A finite real >= 0 (float, int, Fraction or a 0-d numeric array) as the exact Fraction of its value;
    ``upper`` bounds it."""
    value = scalar_of(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    if isinstance(value, Fraction):
        q = value
    else:
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"{name} must be a finite number >= 0, got {v}")
        q = Fraction(v)
    if q < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {float(q)}")
    if upper is not None and q > upper:
        raise ValueError(f"{name} must be a number in [0, {upper}]{upper_name}, got {float(q)}")
    return q


def _refuse_rho(value, name):
    """A :class:`RhoBudget` is a zCDP rho, not an epsilon or a delta: rho = 1/2 is about (4.7, 1e-5)-DP, so taking it
    as epsilon = 0.5 would understate the spend ~9-fold (issue 25)."""
    if isinstance(value, RhoBudget):
        raise TypeError(
            f"{name} must be a real number or a Budget, got a RhoBudget ({_decimal(value)} is a zCDP rho, not an "
            f"{name}: rho = 1/2 is about (4.7, 1e-5)-DP): charge it to a ZCDPAccountant, or convert it first with "
            f"zcdp_to_dp_tight(rho, delta)")


def _budget(epsilon, delta=0.0) -> Budget:
    _refuse_rho(epsilon, "epsilon")
    _refuse_rho(delta, "delta")
    if isinstance(epsilon, Budget):
        if not (isinstance(delta, numbers.Real) and delta == 0):
            raise TypeError("pass either a Budget or (epsilon, delta), not a Budget and a delta")
        return epsilon
    return Budget(as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta", upper=1))


def split(budget, k) -> tuple[Budget, ...]:
    """k equal parts (eps/k, delta/k) that sum EXACTLY to the budget (basic composition)   [Dwork-Roth Thm 3.16]

    A :class:`RhoBudget` (a zCDP budget) splits into k equal RhoBudget parts rho/k (zCDP composes by addition,
    bun2020 Lemma 14).

    Parameters
    ----------
    budget : Budget, RhoBudget or tuple of (float, float)
        The budget to split.
    k : int
        Number of parts (>= 1).

    Returns
    -------
    tuple of Budget or tuple of RhoBudget
        ``k`` equal parts (RhoBudget parts for a RhoBudget).

    Raises
    ------
    TypeError
        If ``budget`` is neither a Budget, a RhoBudget nor an (epsilon, delta) pair.

    Examples
    --------
    >>> from fast.accounting import split
    >>> parts = split((1.0, 1e-5), 4)
    >>> len(parts), float(parts[0].epsilon), sum(p.epsilon for p in parts) == 1
    (4, 0.25, True)
    """
    if isinstance(budget, RhoBudget):
        k = check_int(k, "k", minimum=1)
        part = RhoBudget(budget.rho / k)
        return (part,) * k
    if not isinstance(budget, Budget):
        if not isinstance(budget, (tuple, list)) or len(budget) != 2:
            raise TypeError(f"budget must be a Budget or an (epsilon, delta) pair, got {type(budget).__name__}")
        budget = _budget(*budget)
    k = check_int(k, "k", minimum=1)
    part = Budget(budget.epsilon / k, budget.delta / k)
    return (part,) * k


# ---------------------------------------------------------------------------------------------------------
# the ledgers' storage: in memory, or a file shared by processes (see the module docstring)
# ---------------------------------------------------------------------------------------------------------
_MAGIC = "privlearn-budget-ledger"
_VERSION = "1"
_FRACTION = re.compile(r"[0-9]+/[1-9][0-9]*")

#: every ledger alive in this process: a forked child re-creates their locks (a lock held by another thread at
#: the fork would otherwise stay held forever in the child, where that thread does not exist)
_LIVE: "weakref.WeakSet[_Ledger]" = weakref.WeakSet()


def _renew_locks_after_fork() -> None:
    for ledger in list(_LIVE):
        ledger._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_locks_after_fork)


def _fraction_text(q: Fraction) -> str:
    return f"{q.numerator}/{q.denominator}"


def _parse_fraction(text: str, path) -> Fraction:
    if not _FRACTION.fullmatch(text):
        raise ValueError(f"the ledger file {path!r} is corrupt: {text!r} is not a fraction n/d of integers")
    n, d = text.split("/")
    return Fraction(int(n), int(d))


def _flock():
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        raise NotImplementedError("a file-backed ledger needs fcntl.flock (POSIX); use an in-memory ledger with "
                                  "n_jobs=1 on this platform") from None
    return fcntl


def _reopen(cls, path):
    """Unpickle / copy a file-backed ledger: a new handle on the same file (module level, so it pickles)."""
    return cls.open(path)


class _Ledger:
    """The storage and locking every ledger shares.  Subclasses define the header (``_KIND``, ``_header_fields``,
    ``_matches_header``, ``_load_header``), one entry's text (``_entry_text``, ``_parse_entry``) and the totals
    (``_ZERO``, ``_add``)."""

    _KIND = ""

    # ------------------------------------------------------------------ set-up
    def _init_store(self, path) -> None:
        self._lock = threading.RLock()
        self._pid = os.getpid()
        self._entries: list = []
        self._totals = self._ZERO
        self.path = None
        self._file_id = None
        self._offset = 0
        _LIVE.add(self)
        if path is not None:
            self._attach(path, create=True)

    @classmethod
    def open(cls, path):
        """Open the file-backed ledger at ``path`` (written by ``cls(..., path=path)``): the budget is the file's.

        Parameters
        ----------
        path : str or os.PathLike
            An existing ledger file.

        Returns
        -------
        ledger
            A handle on the file: its charges land in the file, under its lock, as every other handle's.

        Raises
        ------
        ValueError
            The file is empty, holds another kind of ledger, or is corrupt.
        FileNotFoundError
            No such file.

        Examples
        --------
        >>> import os, tempfile
        >>> from fast.accounting import BudgetAccountant
        >>> path = os.path.join(tempfile.mkdtemp(), "ledger.txt")
        >>> _ = BudgetAccountant(1.0, path=path).spend(0.25)
        >>> BudgetAccountant.open(path).remaining()
        Budget(epsilon=0.75, delta=0)
        """
        self = cls.__new__(cls)
        self._init_store(None)
        self._attach(path, create=False)
        return self

    def _attach(self, path, *, create: bool) -> None:
        """Bind to the ledger file at ``path``: create it with this ledger's header (``create`` and empty), or check
        the header it holds (against this ledger's budget when ``create``; adopted by :meth:`open`)."""
        fcntl = _flock()
        path = os.path.abspath(os.fspath(path))
        flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)
        fd = os.open(path, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            st = os.fstat(fd)
            if st.st_size == 0:
                if not create:
                    raise ValueError(f"the ledger file {path!r} is empty: create it with {type(self).__name__}("
                                     f"..., path=...)")
                line = " ".join([_MAGIC, _VERSION, self._KIND] + self._header_fields()) + "\n"
                _write_all(fd, line.encode("ascii"))
                header_len = len(line)
            else:
                text = _read_line(fd, path)
                header_len = len(text) + 1
                fields = text.split(" ")
                if fields[:2] != [_MAGIC, _VERSION]:
                    raise ValueError(f"{path!r} is not a privlearn budget ledger file (its first line is "
                                     f"{text[:60]!r})")
                if fields[2:3] != [self._KIND]:
                    raise ValueError(f"the ledger file {path!r} holds a {' '.join(fields[2:3])!r} ledger, not a "
                                     f"{self._KIND!r} one ({type(self).__name__})")
                if create and not self._matches_header(fields[3:], path):
                    raise ValueError(
                        f"the ledger file {path!r} holds another budget ({' '.join(fields[3:5])}) than "
                        f"{type(self).__name__}(...) was given ({' '.join(self._header_fields()[:2])}): a file is "
                        f"one budget; open it with {type(self).__name__}.open(path), or use another path")
                self._load_header(fields[3:], path)
            self.path = path
            self._file_id = (st.st_dev, st.st_ino)
            self._offset = header_len
            self._sync(fd)
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ reading and writing, under the locks
    @contextlib.contextmanager
    def _reading(self):
        """The state, consistent: under the RLock, synchronised with the file (a shared lock) if there is one."""
        with self._lock:
            if self.path is None:
                yield
                return
            fcntl = _flock()
            fd = os.open(self.path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH)
                self._sync(fd)
                yield
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def _writing(self):
        """Check-and-record, atomic: the RLock and, for a file, an exclusive lock on a descriptor opened for this
        one operation (so a forked child holding an inherited descriptor cannot share the lock), the cache
        synchronised with every charge other handles made; yields a function that records one entry."""
        with self._lock:
            if self.path is None:
                if os.getpid() != self._pid:
                    raise LedgerNotShared(self._not_shared(
                        f"charged in process {os.getpid()} (a forked worker that inherited it from process "
                        f"{self._pid}): the charge would stay in the worker"))
                yield self._record_memory
                return
            fcntl = _flock()
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._sync(fd)
                yield lambda entry: self._record_file(fd, entry)
            finally:
                os.close(fd)

    def _record_memory(self, entry) -> None:
        self._entries.append(entry)
        self._totals = self._add(self._totals, entry)

    def _record_file(self, fd, entry) -> None:
        line = ("charge " + " ".join(self._entry_text(entry)) + "\n").encode("ascii")
        _write_all(fd, line)
        self._offset += len(line)
        self._record_memory(entry)

    def _sync(self, fd) -> None:
        """Read the charges appended since the last read (the file only grows; a file replaced or shrunk is
        refused, as is a line cut short: the ledger fails closed)."""
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != self._file_id:
            raise ValueError(f"the ledger file {self.path!r} was replaced since it was opened: its charges are gone "
                             f"(a ledger file must only grow)")
        if st.st_size < self._offset:
            raise ValueError(f"the ledger file {self.path!r} shrank since it was read: its charges are gone "
                             f"(a ledger file must only grow)")
        if st.st_size == self._offset:
            return
        data = os.pread(fd, st.st_size - self._offset, self._offset)
        if not data.endswith(b"\n"):
            raise ValueError(f"the ledger file {self.path!r} is corrupt: its last line is cut short")
        for raw in data.decode("ascii").splitlines():
            fields = raw.split(" ")
            if fields[0] != "charge":
                raise ValueError(f"the ledger file {self.path!r} is corrupt: {raw[:60]!r} is not a charge line")
            self._record_memory(self._parse_entry(fields[1:], self.path))
        self._offset = st.st_size

    # ------------------------------------------------------------------ copies
    def _not_shared(self, what: str) -> str:
        name = type(self).__name__
        return (f"{name} is an in-memory ledger: {what}, while this ledger would keep authorising releases "
                f"(a budget spent twice). Share one budget across processes with a file-backed ledger, "
                f"{name}(..., path='ledger.txt') (or {name}.open(path)); or keep to one process (n_jobs=1, or "
                f"joblib's 'threading' backend: the ledger is thread-safe)")

    def __reduce_ex__(self, protocol):
        if self.path is None:
            raise LedgerNotShared(self._not_shared(
                "a pickled copy (what joblib / loky and multiprocessing send to a worker, e.g. cross_validate(..., "
                "n_jobs=2, params={'accountant': acc})) would be charged in the worker and its charges lost"))
        return (_reopen, (type(self), self.path))

    def __copy__(self):
        if self.path is None:
            raise LedgerNotShared(self._not_shared("a copy would be a second ledger of the same budget"))
        return type(self).open(self.path)

    def __deepcopy__(self, memo):
        if self.path is None:
            raise LedgerNotShared(self._not_shared("a deep copy would be a second ledger of the same budget"))
        return type(self).open(self.path)

    @property
    def ledger(self) -> list:
        """The charges recorded, in order (a new list: the record cannot be edited through it)."""
        with self._reading():
            return list(self._entries)


def _write_all(fd, data: bytes) -> None:
    written = os.write(fd, data)  # one append (O_APPEND), under the exclusive lock
    if written != len(data):  # pragma: no cover - a full disk
        raise OSError(f"the ledger file write was cut short ({written} of {len(data)} bytes): the file is now "
                      f"refused as corrupt")


def _read_line(fd, path) -> str:
    """The first line of the file (the header)."""
    data, start = b"", 0
    while b"\n" not in data:
        chunk = os.pread(fd, 4096, start)
        if not chunk:
            raise ValueError(f"the ledger file {path!r} is corrupt: its header line is cut short")
        data += chunk
        start += len(chunk)
    try:
        return data[:data.index(b"\n")].decode("ascii")
    except UnicodeDecodeError:
        raise ValueError(f"{path!r} is not a privlearn budget ledger file (not ASCII text)") from None


class BudgetAccountant(_Ledger):
    """Ledger of (epsilon, delta) spends under basic composition, with exact fractional totals.

    ``spend`` refuses (BudgetExceeded, nothing recorded) a charge that would take the total above the budget:
    the mechanisms call ``charge`` BEFORE drawing noise when given ``accountant=``.  Thread-safe (check-and-record
    is atomic under a lock); with ``path`` a file-backed ledger shared by processes (module docstring).

    Parameters
    ----------
    epsilon : float, Fraction or Budget
        The total epsilon (> 0), or a Budget (then ``delta`` must be left at 0).
    delta : float or Fraction
        The total delta in [0, 1].
    path : None, str or os.PathLike, default=None
        None: an in-memory ledger (it refuses to be pickled or copied: :class:`LedgerNotShared`).  A path: the
        ledger lives in that file (created with this budget, or an existing ledger file of the SAME budget is
        joined), charged under a file lock by every process that holds it; it pickles as its path, so joblib /
        loky and ``multiprocessing`` workers charge the same budget (``cross_validate(..., n_jobs=2,
        params={"accountant": acc})``).

    Attributes
    ----------
    budget : Budget
        The total, exactly.
    spent_epsilon, spent_delta : fractions.Fraction
        What has been charged, exactly (read from the file for a file-backed ledger).
    ledger : list of Budget
        The charges, in order.
    path : str or None
        The ledger file (absolute), or None.

    Raises
    ------
    ValueError
        A zero epsilon, or an epsilon / delta out of range; a ``path`` holding another budget or not a ledger.
    TypeError
        An epsilon or delta that is not a number (or a Budget with a delta beside it, or a RhoBudget).

    Examples
    --------
    >>> acc = BudgetAccountant(1.0)
    >>> for _ in range(10):
    ...     _ = acc.spend(Fraction(1, 10))
    >>> acc.remaining()
    Budget(epsilon=0, delta=0)
    """

    _KIND = "epsilon-delta"
    _ZERO = (Fraction(0), Fraction(0))

    def __init__(self, epsilon, delta=0.0, *, path=None):
        self.budget = _budget(epsilon, delta)
        if self.budget.epsilon == 0:
            raise ValueError("epsilon must be a finite number > 0, got 0.0")
        self._init_store(path)

    # the file format (spec._Ledger): "epsilon-delta <eps n/d> <delta n/d>", then "charge <eps n/d> <delta n/d>"
    def _header_fields(self):
        return [_fraction_text(self.budget.epsilon), _fraction_text(self.budget.delta)]

    def _matches_header(self, fields, path):
        return self._header_budget(fields, path) == self.budget

    def _load_header(self, fields, path):
        self.budget = self._header_budget(fields, path)

    @staticmethod
    def _header_budget(fields, path):
        if len(fields) != 2:
            raise ValueError(f"the ledger file {path!r} is corrupt: its header has {len(fields)} budget fields, not 2")
        budget = Budget(_parse_fraction(fields[0], path), _parse_fraction(fields[1], path))
        if budget.epsilon == 0 or budget.delta > 1:
            raise ValueError(f"the ledger file {path!r} is corrupt: its budget {budget} is void")
        return budget

    @staticmethod
    def _entry_text(entry):
        return [_fraction_text(entry.epsilon), _fraction_text(entry.delta)]

    @staticmethod
    def _parse_entry(fields, path):
        if len(fields) != 2:
            raise ValueError(f"the ledger file {path!r} is corrupt: a charge line has {len(fields)} fields, not 2")
        return Budget(_parse_fraction(fields[0], path), _parse_fraction(fields[1], path))

    @staticmethod
    def _add(totals, entry):
        return totals[0] + entry.epsilon, totals[1] + entry.delta

    @property
    def spent_epsilon(self) -> Fraction:
        """The epsilon charged so far, exactly."""
        with self._reading():
            return self._totals[0]

    @property
    def spent_delta(self) -> Fraction:
        """The delta charged so far, exactly."""
        with self._reading():
            return self._totals[1]

    def check(self, epsilon, delta=0.0) -> Budget:
        """The spend as a Budget, or BudgetExceeded if it does not fit (nothing is recorded).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].

        Returns
        -------
        Budget
            The spend, exactly.

        Raises
        ------
        BudgetExceeded
            If the spend does not fit (nothing is recorded either way).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.check(0.5)
        Budget(epsilon=0.5, delta=0)
        """
        charge = _budget(epsilon, delta)
        with self._reading():
            return self._fits(charge)

    def _fits(self, charge: Budget) -> Budget:
        """``charge`` if it fits the totals as they are (the caller holds the lock), else BudgetExceeded."""
        spent_epsilon, spent_delta = self._totals
        if spent_epsilon + charge.epsilon > self.budget.epsilon:
            raise BudgetExceeded(
                f"epsilon budget exceeded: spent {_decimal(spent_epsilon)} + {_decimal(charge.epsilon)} "
                f"> {_decimal(self.budget.epsilon)}")
        if spent_delta + charge.delta > self.budget.delta:
            raise BudgetExceeded(
                f"delta budget exceeded: spent {_decimal(spent_delta)} + {_decimal(charge.delta)} "
                f"> {_decimal(self.budget.delta)}")
        return charge

    def spend(self, epsilon, delta=0.0) -> Budget:
        """Record a spend (a Budget, or epsilon and delta as floats or Fractions, taken exactly).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].

        Returns
        -------
        Budget
            The recorded spend.

        Raises
        ------
        BudgetExceeded
            If the spend does not fit (nothing is recorded).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.spend(0.5, 1e-6)
        Budget(epsilon=0.5, delta=1e-06)
        >>> acc.remaining()
        Budget(epsilon=0.5, delta=9e-06)
        """
        charge = _budget(epsilon, delta)
        with self._writing() as record:  # atomic: no other thread or process charges between check and record
            record(self._fits(charge))
        return charge

    def charge(self, epsilon, delta=0, rho=None) -> Budget:
        """What a mechanism calls: its DELIVERED (epsilon, delta) (``rho`` is for zCDP ledgers; ignored here).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].
        rho : float, optional
            Ignored by this ledger (zCDP ledgers use it).

        Returns
        -------
        Budget
            The recorded spend.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit (nothing is recorded).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.charge(0.25)
        Budget(epsilon=0.25, delta=0)
        """
        return self.spend(epsilon, delta)

    def remaining(self) -> Budget:
        """What remains of the budget.

        Returns
        -------
        Budget
            The budget minus everything spent.

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> _ = acc.spend(0.75)
        >>> acc.remaining()
        Budget(epsilon=0.25, delta=1e-05)
        """
        with self._reading():
            spent_epsilon, spent_delta = self._totals
        return Budget(self.budget.epsilon - spent_epsilon, self.budget.delta - spent_delta)

    def split(self, k) -> tuple[Budget, ...]:
        """k equal parts of what remains.

        Parameters
        ----------
        k : int
            Number of parts (>= 1).

        Returns
        -------
        tuple of Budget
            ``k`` equal parts of the remaining budget (nothing is spent).

        Examples
        --------
        >>> from fast.accounting import BudgetAccountant
        >>> acc = BudgetAccountant(1.0, 1e-5)
        >>> acc.split(2)
        (Budget(epsilon=0.5, delta=5e-06), Budget(epsilon=0.5, delta=5e-06))
        """
        return split(self.remaining(), k)

    def __repr__(self) -> str:
        with self._reading():
            (spent_epsilon, spent_delta), charges = self._totals, len(self._entries)
        r = Budget(self.budget.epsilon - spent_epsilon, self.budget.delta - spent_delta)
        where = "" if self.path is None else f", path={self.path!r}"
        return (f"BudgetAccountant(budget=({_decimal(self.budget.epsilon)}, {_decimal(self.budget.delta)}), "
                f"spent=({_decimal(spent_epsilon)}, {_decimal(spent_delta)}), "
                f"remaining=({_decimal(r.epsilon)}, {_decimal(r.delta)}), charges={charges}{where})")


class ZCDPAccountant(_Ledger):
    """Ledger of rho-zCDP charges (they add, bun2020 Lemma 14) against an (epsilon, delta) target.

    Parameters
    ----------
    epsilon, delta : float
        The target guarantee (delta in (0, 1)): the ledger's rho budget is the largest rho whose tight conversion
        (CKS20 Prop. 12) is within epsilon at delta.
    path : None, str or os.PathLike, default=None
        As :class:`BudgetAccountant`: None is an in-memory ledger; a path a file-backed one shared by processes
        (an existing file must hold the same target; its rho budget, computed by whoever created it, is the
        ledger's).  Thread-safe either way.

    A Gaussian release charges its grid's rho; a pure epsilon-DP release (Laplace) charges epsilon^2 / 2; an
    (epsilon, delta) release without a rho cannot be charged (TypeError).  ``guarantee()`` is the (epsilon, delta)
    of what was spent, by the tight conversion.  Subclasses bind ``_to_rho`` and ``_to_epsilon`` (each package its
    own conversions).

    The surface of :class:`BudgetAccountant`, in rho: ``check(rho)`` / ``spend(rho)`` (exact: a float is its exact
    double, a Fraction or a :class:`RhoBudget` part of ``split`` is taken as it is; BudgetExceeded records
    nothing), ``charge`` (what mechanisms call), ``remaining()`` (= ``remaining_rho()``), ``split(k)``, and a repr
    in decimals.  Values are :class:`RhoBudget` (exact Fractions that print as decimals); ``rho_budget`` and
    ``spent_rho`` are the exact fractions.  ``check_rho`` / ``spend_rho`` are the same as ``check`` / ``spend``.

    Raises
    ------
    ValueError
        epsilon <= 0 or delta outside (0, 1).
    TypeError
        An epsilon or delta that is not a number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import ZCDPAccountant
    >>> acc = ZCDPAccountant(1.0, 1e-5)
    >>> acc.remaining()
    RhoBudget(rho=0.0305565951976)
    >>> for part in acc.split(4):
    ...     _ = acc.spend(part)
    >>> acc.remaining() == 0
    True
    """

    @staticmethod
    def _to_rho(epsilon, delta):  # pragma: no cover - bound by the packages
        raise NotImplementedError

    @staticmethod
    def _to_epsilon(rho, delta):  # pragma: no cover - bound by the packages
        raise NotImplementedError

    _KIND = "zcdp"
    _ZERO = Fraction(0)

    def __init__(self, epsilon, delta, *, path=None):
        _refuse_rho(epsilon, "epsilon")
        _refuse_rho(delta, "delta")
        self.epsilon = float(as_fraction(epsilon, "epsilon"))
        self.delta = float(as_fraction(delta, "delta", upper=1))
        if not (self.epsilon > 0 and 0 < self.delta < 1):
            raise ValueError(f"a zCDP ledger needs epsilon > 0 and delta in (0, 1), got ({epsilon}, {delta})")
        self.rho_budget = RhoBudget(self._to_rho(self.epsilon, self.delta))
        self._init_store(path)

    # the file format (spec._Ledger): "zcdp <epsilon n/d> <delta n/d> <rho budget n/d>", then "charge <rho n/d>"
    def _header_fields(self):
        return [_fraction_text(Fraction(self.epsilon)), _fraction_text(Fraction(self.delta)),
                _fraction_text(self.rho_budget.rho)]

    def _matches_header(self, fields, path):
        return self._header_target(fields, path)[:2] == (self.epsilon, self.delta)

    def _load_header(self, fields, path):
        self.epsilon, self.delta, self.rho_budget = self._header_target(fields, path)

    @staticmethod
    def _header_target(fields, path):
        if len(fields) != 3:
            raise ValueError(f"the ledger file {path!r} is corrupt: its header has {len(fields)} target fields, not 3")
        epsilon, delta, rho = (_parse_fraction(f, path) for f in fields)
        if not (epsilon > 0 and 0 < delta < 1 and rho > 0) or float(epsilon) != epsilon or float(delta) != delta:
            raise ValueError(f"the ledger file {path!r} is corrupt: its target ({float(epsilon)}, {float(delta)}) "
                             f"or rho budget is void")
        return float(epsilon), float(delta), RhoBudget(rho)

    @staticmethod
    def _entry_text(entry):
        return [_fraction_text(entry.rho)]

    @staticmethod
    def _parse_entry(fields, path):
        if len(fields) != 1:
            raise ValueError(f"the ledger file {path!r} is corrupt: a charge line has {len(fields)} fields, not 1")
        return RhoBudget(_parse_fraction(fields[0], path))

    @staticmethod
    def _add(totals, entry):
        return totals + entry.rho

    @property
    def spent_rho(self) -> Fraction:
        """The rho charged so far, exactly (a plain Fraction)."""
        with self._reading():
            return self._totals

    def check_rho(self, rho) -> RhoBudget:
        """Whether a charge of ``rho`` fits: the charge, exactly, or BudgetExceeded (nothing is recorded).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            ``rho``, exactly.

        Raises
        ------
        TypeError
            A ``rho`` that is not a number (a Budget, an (epsilon, delta) pair, a bool).
        ValueError
            A negative or non-finite ``rho``.
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> float(acc.check_rho(0.01))
        0.01
        """
        r = self._as_rho(rho)
        with self._reading():
            return self._fits(r)

    @staticmethod
    def _as_rho(rho) -> RhoBudget:
        if isinstance(rho, Budget):
            raise TypeError("rho must be a real number or a RhoBudget, got a Budget (an (epsilon, delta) release: "
                            "charge(epsilon, delta, rho=...) with its rho, or charge(epsilon) for a pure-DP one)")
        return RhoBudget(rho)

    def _fits(self, r: RhoBudget) -> RhoBudget:
        """``r`` if it fits the total as it is (the caller holds the lock), else BudgetExceeded."""
        if self._totals + r > self.rho_budget:
            raise BudgetExceeded(f"rho budget exceeded: spent {_decimal(self._totals)} + {_decimal(r)} > "
                                 f"{_decimal(self.rho_budget)} (the rho of ({self.epsilon}, {self.delta:.3g}))")
        return r

    def spend_rho(self, rho) -> RhoBudget:
        """Record a charge of ``rho`` (BudgetExceeded, nothing recorded, if it does not fit).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            The recorded charge.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> float(acc.spend_rho(0.01)), len(acc.ledger)
        (0.01, 1)
        """
        r = self._as_rho(rho)
        with self._writing() as record:  # atomic: no other thread or process charges between check and record
            record(self._fits(r))
        return r

    def check(self, rho) -> RhoBudget:
        """Whether a charge of ``rho`` fits (as :meth:`BudgetAccountant.check`; the same as :meth:`check_rho`).

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0), taken exactly.

        Returns
        -------
        RhoBudget
            The charge, exactly (nothing is recorded).

        Raises
        ------
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.check(0.01)
        RhoBudget(rho=0.01)
        """
        return self.check_rho(rho)

    def spend(self, rho) -> RhoBudget:
        """Record a charge of ``rho`` exactly (as :meth:`BudgetAccountant.spend`; the same as :meth:`spend_rho`).

        A float is taken as the exact value of its double, a Fraction or a :class:`RhoBudget` (a part of
        :meth:`split`) as it is, so spending the k parts of a split spends exactly what was split.

        Parameters
        ----------
        rho : float, Fraction or RhoBudget
            The zCDP charge (>= 0).

        Returns
        -------
        RhoBudget
            The recorded charge.

        Raises
        ------
        BudgetExceeded
            If the charge does not fit (nothing is recorded).

        Examples
        --------
        >>> from fractions import Fraction
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.spend(Fraction(1, 100))
        RhoBudget(rho=0.01)
        >>> acc.spent_rho
        Fraction(1, 100)
        """
        return self.spend_rho(rho)

    def charge(self, epsilon, delta=0, rho=None) -> Fraction:
        """What a mechanism calls: rho if given, else epsilon^2 / 2 for a pure-DP release (delta must be 0; a
        Budget's own delta counts).

        Parameters
        ----------
        epsilon : float, Fraction or Budget
            The epsilon (>= 0), or a Budget (then ``delta`` must be left at 0).
        delta : float or Fraction, default=0
            The delta in [0, 1].
        rho : float, optional
            The release's rho (a Gaussian release: its grid's rho).

        Returns
        -------
        RhoBudget
            The recorded rho.

        Raises
        ------
        TypeError
            For an (epsilon, delta) release with delta > 0 and no rho.
        BudgetExceeded
            If the charge does not fit.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> round(float(acc.charge(0.1)), 12)  # a pure 0.1-DP release: rho = 0.1^2 / 2
        0.005
        """
        _refuse_rho(epsilon, "epsilon")  # charge(epsilon) of a rho would charge rho^2 / 2: spend(rho) takes a rho
        if isinstance(epsilon, Budget):
            budget = _budget(epsilon, delta)  # refuses a Budget AND a delta
            epsilon, delta = budget.epsilon, budget.delta
        if rho is None:
            if as_fraction(delta, "delta") != 0:
                raise TypeError("an (epsilon, delta)-DP release with delta > 0 and no rho cannot be charged to a "
                                "zCDP ledger")
            e = as_fraction(epsilon, "epsilon")
            rho = e * e / 2
        return self.spend_rho(rho)

    def remaining(self) -> RhoBudget:
        """What remains of the rho budget (as :meth:`BudgetAccountant.remaining`).

        Returns
        -------
        RhoBudget
            The rho budget minus everything spent: exact (a Fraction), printed as a decimal.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> _ = acc.spend(0.01)
        >>> acc.remaining()
        RhoBudget(rho=0.0205565951976)
        >>> acc.remaining() == acc.rho_budget - acc.spent_rho
        True
        """
        with self._reading():
            spent = self._totals
        return RhoBudget(self.rho_budget - spent)

    def remaining_rho(self) -> RhoBudget:
        """The rho still available: the rho budget minus the charges (the same as :meth:`remaining`).

        Returns
        -------
        RhoBudget
            The remaining rho, exactly (a Fraction), printed as a decimal.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.remaining_rho() == acc.rho_budget
        True
        >>> acc.remaining_rho()
        RhoBudget(rho=0.0305565951976)
        """
        return self.remaining()

    def split(self, k) -> tuple[RhoBudget, ...]:
        """k equal parts of what remains (as :meth:`BudgetAccountant.split`): they sum EXACTLY to it.

        Parameters
        ----------
        k : int
            Number of parts (>= 1).

        Returns
        -------
        tuple of RhoBudget
            ``k`` equal parts of the remaining rho (nothing is spent).

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> parts = acc.split(3)
        >>> sum(parts) == acc.remaining()
        True
        """
        return split(self.remaining(), k)

    def guarantee(self) -> tuple[float, float]:
        """(epsilon, delta) of everything spent so far (tight conversion; (0, 0) before any charge).

        Returns
        -------
        tuple of float
            The (epsilon, delta) of the charges so far.

        Examples
        --------
        >>> from fast.accounting import ZCDPAccountant
        >>> acc = ZCDPAccountant(1.0, 1e-5)
        >>> acc.guarantee()
        (0.0, 0.0)
        >>> _ = acc.spend_rho(0.01)
        >>> round(acc.guarantee()[0], 4)
        0.5457
        """
        spent = self.spent_rho
        if spent == 0:
            return 0.0, 0.0
        return self._to_epsilon(float(spent) * (1 + 2**-50), self.delta), self.delta

    def __repr__(self) -> str:
        with self._reading():
            spent, charges = self._totals, len(self._entries)
        where = "" if self.path is None else f", path={self.path!r}"
        return (f"ZCDPAccountant(target=({self.epsilon:.12g}, {self.delta:.3g}), rho_budget="
                f"{_decimal(self.rho_budget)}, spent_rho={_decimal(spent)}, "
                f"remaining_rho={_decimal(self.rho_budget - spent)}, charges={charges}{where})")


# ---------------------------------------------------------------------------------------------------------------------
# The process-wide DEFAULT ledger (issue 28 item 5; like diffprivlib's default accountant): every private release made
# WITHOUT an explicit ``accountant=`` is recorded here, so a search that fits a private estimator many times (e.g.
# ``GridSearchCV``) leaves a total, not only one fit's ``privacy_spent_``.
#
# * One entry per private ESTIMATOR fit (its delivered spend, labelled with the estimator) and one per DIRECT mechanism
#   call; the mechanism calls a fit makes internally are not recorded (they would double count): a fit runs inside
#   :func:`private_release` and only the outermost release records (a context variable, so per thread / task).
# * It records and never refuses, unless a cap was set (``reset_default_ledger(cap=(epsilon, delta))``): then a
#   release that would exceed the cap raises BudgetExceeded before any noise is drawn, exactly as an explicit ledger.
# * An explicit ``accountant=`` is charged INSTEAD of the default (never both).
# * Seeded fits (``insecure_noise_seed``) are not private and are not recorded (their privacy_spent_ says so).
# * Per process: a forked child (e.g. a joblib / multiprocessing worker with n_jobs > 1) starts with a copy of the
#   parent's entries and records its own releases only in that copy; the parent never sees them, and a cap is then
#   enforced per worker only.  For totals across processes pass a file-backed ledger (``path=``) explicitly.
# ---------------------------------------------------------------------------------------------------------------------

import contextvars  # noqa: E402
import functools  # noqa: E402
from typing import NamedTuple  # noqa: E402

__all__ += ["LedgerEntry", "DefaultLedger", "default_ledger", "reset_default_ledger", "charge_release",
            "private_release", "outer_label"]


class LedgerEntry(NamedTuple):
    """One release recorded by the default ledger: ``label`` names what released (estimator class or mechanism),
    ``epsilon`` / ``delta`` the exact delivered (epsilon, delta) and ``rho`` its zCDP rho (None when the release
    states none, e.g. a Laplace release).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from fast.accounting import LedgerEntry
    >>> LedgerEntry("laplace_mechanism", Fraction(1, 2), Fraction(0), None).epsilon
    Fraction(1, 2)
    """

    label: str
    epsilon: Fraction
    delta: Fraction
    rho: Fraction | None


class DefaultLedger:
    """The process-wide record of private releases made without an explicit ``accountant=`` (see
    :func:`default_ledger`).  Thread-safe and exact (fractions).

    Summary of a mixed history: ``total()`` is the basic composition (sums) of every entry's (epsilon, delta), which
    every release states, so it is always a valid bound; ``spent_rho`` sums the rho of the entries that state one and
    is a zCDP total only when ``rho_complete`` (every entry states a rho).

    Parameters
    ----------
    cap : None or (epsilon, delta), default=None
        None records without refusing; a cap makes the ledger refuse (BudgetExceeded, nothing recorded, no noise
        drawn) a release whose (epsilon, delta) would take the basic-composition total beyond the cap.

    Examples
    --------
    >>> from fast.accounting import DefaultLedger
    >>> led = DefaultLedger(cap=(1.0, 0))
    >>> led.record(0.25, label="demo")
    LedgerEntry(label='demo', epsilon=Fraction(1, 4), delta=Fraction(0, 1), rho=None)
    >>> led.total()
    Budget(epsilon=0.25, delta=0)
    """

    def __init__(self, cap=None):
        self._lock = threading.RLock()
        self._entries: list[LedgerEntry] = []
        self._cap = _cap_ledger(cap)
        _LIVE_DEFAULTS.add(self)

    @property
    def cap(self):
        """The cap as a BudgetAccountant (its ``remaining()`` is what is left), or None."""
        return self._cap

    def record(self, epsilon, delta=0, rho=None, *, label: str) -> LedgerEntry:
        """Record one release (refused with BudgetExceeded, nothing recorded, if a cap is set and exceeded).

        Parameters
        ----------
        epsilon : float or Fraction
            The delivered epsilon (>= 0).
        delta : float or Fraction, default=0
            The delivered delta in [0, 1].
        rho : float or Fraction, optional
            The release's zCDP rho, when it states one.
        label : str
            What released (an estimator class name or a mechanism).

        Returns
        -------
        LedgerEntry
            The recorded entry (exact fractions).

        Raises
        ------
        BudgetExceeded
            The cap cannot pay (nothing is recorded).

        Examples
        --------
        >>> from fast.accounting import DefaultLedger
        >>> DefaultLedger().record(0.5, 1e-6, label="demo").label
        'demo'
        """
        charge = _budget(epsilon, delta)
        r = None if rho is None else as_fraction(rho, "rho")
        entry = LedgerEntry(str(label), charge.epsilon, charge.delta, r)
        with self._lock:  # atomic: the cap's check and the record
            if self._cap is not None:
                self._cap.spend(charge.epsilon, charge.delta)
            self._entries.append(entry)
        return entry

    def entries(self) -> tuple:
        """The recorded releases, oldest first (a snapshot).

        Returns
        -------
        tuple of LedgerEntry

        Examples
        --------
        >>> from fast.accounting import DefaultLedger
        >>> led = DefaultLedger()
        >>> _ = led.record(0.25, label="a"), led.record(0.5, label="b")
        >>> [e.label for e in led.entries()]
        ['a', 'b']
        """
        with self._lock:
            return tuple(self._entries)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def total(self) -> Budget:
        """Basic composition of every entry: (sum of epsilons, sum of deltas), exact.

        Returns
        -------
        Budget

        Examples
        --------
        >>> from fast.accounting import DefaultLedger
        >>> led = DefaultLedger()
        >>> _ = led.record(0.25, 1e-6, label="a"), led.record(0.5, label="b")
        >>> led.total()
        Budget(epsilon=0.75, delta=1e-06)
        """
        with self._lock:
            entries = list(self._entries)
        return Budget(sum((e.epsilon for e in entries), Fraction(0)), sum((e.delta for e in entries), Fraction(0)))

    @property
    def spent_rho(self) -> Fraction:
        """Sum of the rho of the entries that state one (a zCDP total only when ``rho_complete``)."""
        with self._lock:
            return sum((e.rho for e in self._entries if e.rho is not None), Fraction(0))

    @property
    def rho_complete(self) -> bool:
        """True when every entry states a rho (then ``spent_rho`` composes the whole history by zCDP)."""
        with self._lock:
            return all(e.rho is not None for e in self._entries)

    def __reduce_ex__(self, protocol):
        raise LedgerNotShared("the default ledger is per process and cannot be pickled; pass a file-backed ledger "
                              "(BudgetAccountant(epsilon, delta, path=...)) as accountant= to total across processes")

    def __repr__(self) -> str:
        t = self.total()
        cap = "" if self._cap is None else f", cap=({_decimal(self._cap.epsilon)}, {_decimal(self._cap.delta)})"
        return f"DefaultLedger(entries={len(self)}, epsilon={_decimal(t.epsilon)}, delta={_decimal(t.delta)}{cap})"


def _cap_ledger(cap):
    """The cap (None or an (epsilon, delta) pair) as a BudgetAccountant; bad values name ``cap``."""
    if cap is None:
        return None
    if isinstance(cap, (str, bytes, Budget)) or not isinstance(cap, (tuple, list)) or len(cap) != 2:
        raise TypeError(f"cap must be None or an (epsilon, delta) pair, got {cap!r}")
    try:
        return BudgetAccountant(*cap)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"cap must be None or an (epsilon, delta) pair with epsilon > 0 and delta in [0, 1]: "
                        f"{exc}") from None


_LIVE_DEFAULTS: "weakref.WeakSet[DefaultLedger]" = weakref.WeakSet()
_DEFAULT_SWAP = threading.Lock()
_DEFAULT = DefaultLedger()
#: depth of private releases running in this thread / task: only the outermost one records in the default ledger
_RELEASE_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("privlearn_release_depth", default=0)


def _renew_default_locks_after_fork() -> None:
    global _DEFAULT_SWAP
    _DEFAULT_SWAP = threading.Lock()
    for led in list(_LIVE_DEFAULTS):
        led._lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_default_locks_after_fork)


def default_ledger() -> DefaultLedger:
    """The process-wide default ledger: every private release made with ``accountant=None`` is recorded there.

    Returns
    -------
    DefaultLedger

    Examples
    --------
    >>> from fast.accounting import default_ledger, reset_default_ledger
    >>> from fast.mechanisms import laplace_mechanism
    >>> _ = reset_default_ledger()
    >>> _ = laplace_mechanism(1.0, sensitivity=1.0, epsilon=0.5)
    >>> default_ledger().total()
    Budget(epsilon=0.5, delta=0)
    """
    return _DEFAULT


def reset_default_ledger(cap=None) -> DefaultLedger:
    """Replace the default ledger by an empty one (with an optional (epsilon, delta) ``cap``) and return it.

    Parameters
    ----------
    cap : None or (epsilon, delta), default=None
        See :class:`DefaultLedger`.

    Returns
    -------
    DefaultLedger
        The new default ledger.

    Examples
    --------
    >>> from fast.accounting import reset_default_ledger
    >>> led = reset_default_ledger(cap=(1.0, 1e-5))
    >>> led.cap.remaining()
    Budget(epsilon=1, delta=1e-05)
    >>> _ = reset_default_ledger()  # uncapped again
    """
    global _DEFAULT
    new = DefaultLedger(cap)
    with _DEFAULT_SWAP:
        _DEFAULT = new
    return new


def charge_release(accountant, epsilon, delta=0, rho=None, *, label: str):
    """Charge one private release: ``accountant`` when given (``accountant.charge``), else the default ledger, but
    only when this release is not inside another one (:func:`private_release`: an estimator's internal mechanism
    calls are covered by its fit's charge).  Call it before any noise is drawn.

    Parameters
    ----------
    accountant : None or a ledger
        The explicit ledger, charged instead of the default.
    epsilon, delta, rho
        The delivered spend (as ``accountant.charge``).
    label : str
        What released, for the default ledger's entry.

    Returns
    -------
    What ``accountant.charge`` returns, the default ledger's LedgerEntry, or None (not recorded).
    """
    if accountant is not None:
        return accountant.charge(epsilon, delta, rho=rho)
    if _RELEASE_DEPTH.get() > 1 or (_RELEASE_DEPTH.get() == 1 and not label.startswith(_OUTER)):
        return None
    return default_ledger().record(epsilon, delta, rho, label=label.removeprefix(_OUTER))


#: a label starting with this is the charge of the release that opened the current private_release frame
_OUTER = "\0outer:"


def private_release(func):
    """Decorate a private fit / run whose internal mechanism calls its own charge covers: while it runs, releases
    made inside it are not recorded in the default ledger, and its own charge records only when it is not itself
    inside another release (charge it with ``charge_release(..., label=outer_label(name))``)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        token = _RELEASE_DEPTH.set(_RELEASE_DEPTH.get() + 1)
        try:
            return func(*args, **kwargs)
        finally:
            _RELEASE_DEPTH.reset(token)

    return wrapper


def outer_label(name: str) -> str:
    """The label a :func:`private_release` frame charges its own release with."""
    return _OUTER + name
