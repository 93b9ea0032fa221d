"""Start the compile-ahead warm-up in the background the first time :mod:`fast` is imported with a cold cache.

A numba kernel is compiled on its first call and cached on disk (``cache=True``); before this module, the first
private fit on a new install paid that compilation in the user's call (11 s for a RadoBoost fit on Gaussian-noised
edges, 26 s for the first Gaussian mechanism; docs/performance.md, "First-call cost") unless the user had run
``privlearn warmup`` by hand (issue 28 item 7).  Now the first ``import fast`` whose cache holds no warm-up stamp
starts ``python -m fast._warmup --background STAMP`` as a detached, low-priority process (``nice`` 10) and returns at
once: it compiles every kernel into numba's cache while the user's program reads its data, and a kernel it has
cached before the user's first call reaches it is loaded instead of compiled (numba looks at the cache when a
function is first called).  When it has cached every kernel it writes the stamp, and no later import starts
another.

* The stamp lives where numba's cache goes (``NUMBA_CACHE_DIR`` if set, else ``fast/__pycache__`` when writable,
  else ``$XDG_CACHE_HOME/privlearn`` or ``~/.cache/privlearn``) and is named after the version, the Python and the
  size and modification time of every source file of :mod:`fast`: an upgrade or an edited source warms again.
* One warm-up at a time: the process holds ``STAMP.lock`` (created exclusively) and removes it with success; a
  warm-up that failed leaves it, and none is retried for a day (its output is in ``STAMP.log``).
* Opt out with ``PRIVLEARN_AUTO_WARMUP=0`` (the test suite does, so its timings are its own); nothing is started
  under ``NUMBA_DISABLE_JIT``.  Any error here (a read-only install, no ``fork``) leaves the import as it was: the
  kernels then compile on first use, as before.
* ``privlearn warmup`` (the foreground run) writes the same stamp.
"""
from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

FAST = Path(__file__).resolve().parent

#: the environment variable that turns the background warm-up off ("0", "false", "no", "off")
ENV = "PRIVLEARN_AUTO_WARMUP"
#: set in the warm-up process itself, whose own ``import fast`` must not start another
CHILD_ENV = "PRIVLEARN_WARMUP_CHILD"
#: a lock older than this (a warm-up that failed or was killed) no longer blocks a new attempt
RETRY_SECONDS = 24 * 3600.0

#: the warm-up process this interpreter started (kept so that it is never garbage-collected while running)
_STARTED: list = []


def disabled() -> bool:
    """True when the environment turns the background warm-up off (``PRIVLEARN_AUTO_WARMUP`` = 0/false/no/off,
    ``NUMBA_DISABLE_JIT`` set, or this is the warm-up process itself)."""
    if os.environ.get(ENV, "1").strip().lower() in {"0", "false", "no", "off"}:
        return True
    if os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in {"", "0"}:
        return True
    return bool(os.environ.get(CHILD_ENV))


def stamp_dir() -> Path:
    """Where the stamp goes: numba's cache directory for :mod:`fast` (see the module docstring)."""
    configured = os.environ.get("NUMBA_CACHE_DIR")
    if configured:
        return Path(configured)
    pycache = FAST / "__pycache__"
    if os.access(pycache if pycache.exists() else FAST, os.W_OK):
        return pycache
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "privlearn"


def sources_key(root: Path = FAST) -> str:
    """A short hash of the Python version and of the path, size and modification time of every ``.py`` file under
    ``root`` (the same facts numba's cache index keys on), so that an edited or upgraded source warms again."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(root).as_posix()}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def stamp_path() -> Path:
    """The stamp a complete warm-up of these sources writes."""
    from fast._contracts import __version__

    return stamp_dir() / f"privlearn-warm-{__version__}-{sources_key()}.stamp"


def write_stamp(stamp: Path) -> None:
    """Mark ``stamp``'s warm-up complete (atomically) and release its lock."""
    stamp = Path(stamp)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}.tmp")
    tmp.write_text(f"warmed {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n", encoding="utf-8")
    os.replace(tmp, stamp)
    stamp.with_suffix(".lock").unlink(missing_ok=True)


def _take_lock(lock: Path) -> bool:
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        return True
    except FileExistsError:
        if time.time() - lock.stat().st_mtime < RETRY_SECONDS:
            return False
        os.utime(lock)  # a stale lock: take it over
        return True


def _spawn(stamp: Path):
    import subprocess

    log = open(stamp.with_suffix(".log"), "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        kwargs = dict(stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, close_fds=True,
                      env={**os.environ, CHILD_ENV: "1"})
        if os.name == "posix":
            kwargs["start_new_session"] = True  # outlives the user's program, and a Ctrl-C there does not stop it
        else:  # pragma: no cover - Windows
            kwargs["creationflags"] = (subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
                                       | subprocess.BELOW_NORMAL_PRIORITY_CLASS)
        return subprocess.Popen([sys.executable, "-m", "fast._warmup", "--background", str(stamp)], **kwargs)
    finally:
        log.close()


def maybe_start():
    """Start the background warm-up when the cache holds no stamp for these sources and no warm-up is running.

    Called by ``import fast``; costs a directory walk of the sources (well under a millisecond warm) when the stamp
    exists.  Never raises.

    Returns
    -------
    subprocess.Popen or None
        The process started, or None (disabled, already warm, another warm-up running or failed within the day,
        or an error).
    """
    if disabled():
        return None
    try:
        stamp = stamp_path()
        if stamp.exists():
            return None
        stamp.parent.mkdir(parents=True, exist_ok=True)
        if not _take_lock(stamp.with_suffix(".lock")):
            return None
        process = _spawn(stamp)
    except Exception:  # noqa: BLE001 - a warm-up that cannot start must never break the import
        return None
    _STARTED.append(process)
    return process
