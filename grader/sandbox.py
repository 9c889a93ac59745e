"""Run a submission in a bubblewrap sandbox and call its functions from the grader's process.

:func:`stage_package` writes the copy of ``dpcourse`` a sandbox sees for one assignment: the in-book
checkers and the homework tooling are left out (stubs stand in for the checkers), and every function the
assignment asks students to write (the checkers' :class:`~dpcourse.exercises.Forbidden` sets) has its body
replaced, in the source, by a ``raise``. Since the original source is not in the sandbox at all, no alias,
default argument, reload or ``exec`` of the file can reach it.

:class:`Sandbox` starts ``bwrap`` (Debian's bubblewrap) with new user, PID, network, IPC, UTS and cgroup
namespaces, no capabilities, a read-only view of the system's ``/usr`` and ``/etc`` and of the Python
installation only (not the course's folder, the teacher's files, the other submissions, the secret or the
gradebook), a private size-limited ``/tmp`` as home, and resource limits (address space, CPU seconds,
file size, open files, processes). The runner (:mod:`grader.runner`) executes the submission's cells, then
answers the grader's requests with plain data (:mod:`grader.wire`). :meth:`Sandbox.close` kills the whole
process tree: the sandbox's PID namespace ends with it, so a process the student detached ends too.

:class:`RemoteFunction` is the student's function as the hidden tests see it: calling it sends the
arguments across (a ``Generator`` as its state, whose consumed state is copied back after the call) and
returns the decoded result, or raises the student's exception by name (``ValueError`` and the other
built-in exceptions as themselves, anything else as :class:`StudentError`).
"""

from __future__ import annotations

import ast
import builtins
import os
import resource
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import numpy as np

from . import wire

__all__ = ["RemoteFunction", "Sandbox", "SandboxError", "StudentError", "bwrap_available", "stage_package"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class SandboxError(RuntimeError):
    """The sandbox stopped (it crashed, passed its time limit or broke the protocol): no more answers from it."""


class StudentError(Exception):
    """An exception the student's code raised that is not one of Python's built-in exceptions."""


def bwrap_available() -> bool:
    return shutil.which("bwrap") is not None


# ------------------------------------------------------------------------------------------ staging

_CHECKER_STUB = '''"""In-book checkers do not run while a submission is graded: the grader's hidden tests judge it."""


class CheckResult:
    def __init__(self, passed=False, message="not checked while grading"):
        self.passed, self.message = passed, message

    def __repr__(self):
        return "not checked while grading"


def _not_while_grading(*args, **kwargs):
    return CheckResult()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _not_while_grading
'''


def _forbidden_functions(forbidden) -> list[tuple[str, int, str, str]]:
    """``(file, first line, name, display name)`` of each Python function whose code a Forbidden set holds."""
    out = []
    for obj in forbidden._keep:   # noqa: SLF001 - the grader reads the sets the checkers define
        if isinstance(obj, types.CodeType) and not obj.co_name.startswith("<"):
            out.append((obj.co_filename, obj.co_firstlineno, obj.co_name,
                        forbidden.name_of_code(obj) or obj.co_name))
    return out


def _stub_source(source: str, targets: list[tuple[int, str, str]]) -> str:
    """``source`` with each function ``(first line, name, display)`` replaced by a stub that raises."""
    tree = ast.parse(source)
    lines = source.split("\n")
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        for line, name, display in targets:
            if line == first and name == node.name:
                spans.append((node.lineno, node.end_lineno, node.col_offset, node.name, display))
    spans.sort()
    kept, last_end = [], 0
    for span in spans:   # a function nested in one already replaced goes with it
        if span[0] > last_end:
            kept.append(span)
            last_end = span[1]
    for start, end, col, name, display in reversed(kept):
        pad = " " * col
        msg = (f"{display} is the code this homework asks you to write yourself: it is switched off while "
               "your submission is graded")
        lines[start - 1:end] = [f"{pad}def {name}(*args, **kwargs):", f"{pad}    raise RuntimeError({msg!r})"]
    return "\n".join(lines)


def stage_package(dest: Path, forbidden_sets=()) -> Path:
    """Write the sandbox's ``dpcourse`` under ``dest`` (``dest/dpcourse``) and return ``dest``.

    Leaves out ``homework/`` and replaces ``exercises/`` by stubs; replaces the body of every function of
    the given :class:`~dpcourse.exercises.Forbidden` sets by a ``raise``; compiles every file, so that a
    stub that breaks a module is found here, not in a student's grade.
    """
    import dpcourse

    src = Path(dpcourse.__file__).resolve().parent
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    pkg = dest / "dpcourse"
    shutil.copytree(src, pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "homework", "exercises"))
    stub_dir = pkg / "exercises"
    stub_dir.mkdir()
    (stub_dir / "__init__.py").write_text(_CHECKER_STUB)
    for module in (src / "exercises").glob("*.py"):
        if module.name != "__init__.py":
            (stub_dir / module.name).write_text(_CHECKER_STUB)
    by_file: dict[str, list] = {}
    for fset in forbidden_sets:
        for file, line, name, display in _forbidden_functions(fset):
            path = Path(file).resolve()
            if src in path.parents and "exercises" not in path.relative_to(src).parts:
                by_file.setdefault(str(path.relative_to(src)), []).append((line, name, display))
    for rel, targets in by_file.items():
        target = pkg / rel
        target.write_text(_stub_source(target.read_text(), targets))
    for path in pkg.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")
    return dest


# ------------------------------------------------------------------------------------------ the sandbox

def _limits(cpu_seconds: int, memory_bytes: int, cgroups=None):
    def apply():
        if cgroups is not None:
            cgroups.join()
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 2**20, 64 * 2**20))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_NPROC, (256, 256))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


class _Cgroups:
    """A pids and a memory control group for one sandbox, when the host lets the grader make them.

    ``pids.max`` stops a fork bomb (a process count rlimit does not bind root, which the sandbox's processes are
    outside their user namespace), and the memory limit covers every process and the private ``/tmp`` together
    (``RLIMIT_AS`` binds one process at a time). cgroup v1 (``/sys/fs/cgroup/pids``, ``/sys/fs/cgroup/memory``)
    and v2 (``/sys/fs/cgroup`` with both controllers) are tried; where neither is writable :attr:`active` is
    empty and the rlimits stand alone (the grading report says so).
    """

    def __init__(self, pids_max: int, memory_bytes: int):
        self.dirs: list[Path] = []
        self.active: list[str] = []
        name = f"dpcourse-grader-{os.getpid()}-{id(self):x}-{time.monotonic_ns()}"
        own = {}
        try:
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                for c in controllers.split(","):
                    own[c] = path
        except OSError:
            return
        v1 = [("pids", Path("/sys/fs/cgroup/pids"), {"pids.max": str(pids_max)}),
              ("memory", Path("/sys/fs/cgroup/memory"), {"memory.limit_in_bytes": str(memory_bytes)}),
              # at most one core: a submission that spins many processes cannot starve the one graded beside it
              ("cpu", Path("/sys/fs/cgroup/cpu"), {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "100000"})]
        for controller, root, settings in v1:
            if not (root / "cgroup.procs").exists():
                continue
            d = root / own.get(controller, "/").lstrip("/") / name
            try:
                d.mkdir()
            except OSError:
                continue
            self.dirs.append(d)
            try:
                for key, value in settings.items():
                    (d / key).write_text(value)
                self.active.append(controller)
            except OSError:
                pass
        if not self.active and (Path("/sys/fs/cgroup") / "cgroup.controllers").exists():
            d = Path("/sys/fs/cgroup") / own.get("", "/").lstrip("/") / name
            try:
                d.mkdir()
                self.dirs.append(d)
                (d / "pids.max").write_text(str(pids_max))
                (d / "memory.max").write_text(str(memory_bytes))
                self.active += ["pids", "memory"]
                (d / "cpu.max").write_text("100000 100000")
                self.active.append("cpu")
            except OSError:
                pass

    def join(self):
        """Put the calling process (the sandbox, before it execs) in the groups."""
        for d in self.dirs:
            try:
                (d / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                pass

    def kill_and_remove(self):
        for _ in range(50):
            left = False
            for d in self.dirs:
                try:
                    pids = [int(p) for p in (d / "cgroup.procs").read_text().split()]
                except OSError:
                    continue
                for pid in pids:
                    left = True
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            if not left:
                break
            time.sleep(0.05)
        for d in self.dirs:
            try:
                d.rmdir()
            except OSError:
                pass


#: Installed packages a submission must not see: the reference DP libraries the tests compare against implement
#: what coding questions ask for (PipelineDP's C++ partition selection, dp_accounting's accountants). dpcourse
#: imports none of them at module level.
HIDDEN_PACKAGES = ("pydp", "pipeline_dp", "dp_accounting", "opendp", "diffprivlib")


def hidden_package_folders() -> list[str]:
    """The folders of :data:`HIDDEN_PACKAGES` installed here, each to be covered by an empty tmpfs."""
    import importlib.util

    folders = []
    for name in HIDDEN_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            folders += [os.path.realpath(p) for p in spec.submodule_search_locations]
    return sorted(set(folders))


def bwrap_command(stage: Path, argv: list[str]) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` in the sandbox with ``stage`` as ``/sandbox/lib``."""
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
           "--uid", "65534", "--gid", "65534", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            cmd += ["--ro-bind", top, top]
    # The private /tmp is mounted before the Python installation, so that a Python under /tmp (a CI
    # virtual environment made by mktemp) is bound on top of it instead of hidden by it.
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(256 * 2**20), "--tmpfs", "/tmp"]
    for prefix in sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix}):
        if not prefix.startswith("/usr/"):
            cmd += ["--ro-bind", prefix, prefix]
    for folder in hidden_package_folders():   # the reference DP libraries: their samplers would answer questions
        cmd += ["--tmpfs", folder]
    cmd += ["--ro-bind", str(stage), "/sandbox/lib",
            "--ro-bind", str(HERE / "runner.py"), "/sandbox/grader/runner.py",
            "--ro-bind", str(HERE / "wire.py"), "/sandbox/grader/wire.py",
            "--chdir", "/tmp", "--clearenv",
            "--setenv", "HOME", "/tmp", "--setenv", "PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "--setenv", "MPLBACKEND", "Agg", "--setenv", "MPLCONFIGDIR", "/tmp/.matplotlib",
            "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
            "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "IPYTHONDIR", "/tmp/.ipython"]
    for key in ("NPY_DISABLE_CPU_FEATURES",):   # the host's numpy settings, so that a submission sees the book's
        if key in os.environ:
            cmd += ["--setenv", key, os.environ[key]]
    return cmd + ["--"] + argv


class Sandbox:
    """One submission's cells run in a sandbox; then :meth:`value` and :meth:`call` read it as plain data.

    ``cells`` are the code cells' sources; each runs under ``cell_timeout`` seconds (the next one runs after a
    cell that raises or is stopped). The whole sandbox lives at most ``total_timeout`` seconds of wall time
    and ``cpu_seconds`` of CPU, with at most ``memory_bytes`` of memory and ``pids_max`` processes in all
    (control groups, see :class:`_Cgroups`; ``memory_bytes`` also caps each process's address space). After
    that, or if it crashes or breaks the protocol, every request raises
    :class:`SandboxError` and :attr:`stopped` says why.
    """

    def __init__(self, stage: Path, cells: list[str], *, cell_timeout: float = 30.0, total_timeout: float = 300.0,
                 cpu_seconds: int = 600, memory_bytes: int = 2 * 2**30, pids_max: int = 128):
        if not bwrap_available():
            raise SandboxError("bubblewrap (bwrap) is not installed: on Debian, apt-get install -y bubblewrap. "
                               "Submissions are never graded outside the sandbox.")
        self.stopped: str | None = None
        self.cells: list[dict] = []
        self._deadline = time.monotonic() + total_timeout
        argv = [sys.executable, "-I", "/sandbox/grader/runner.py"]
        self.cgroups = _Cgroups(pids_max, memory_bytes)
        self._proc = subprocess.Popen(bwrap_command(Path(stage), argv), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                      preexec_fn=_limits(cpu_seconds, memory_bytes, self.cgroups), bufsize=0)
        self._stderr = bytearray()
        self._err_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._err_thread.start()
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._proc.stdout, selectors.EVENT_READ)
        os.set_blocking(self._proc.stdin.fileno(), False)   # writes keep the deadline too (_send)
        try:
            self._send({"cells": list(cells), "cell_timeout": float(cell_timeout)})
            reply = self._receive(self._deadline)
            if not (isinstance(reply, dict) and isinstance(reply.get("cells"), list)):
                self._stop("it broke the protocol")
            self.cells = [_cell_report(i, c) for i, c in enumerate(reply["cells"][:len(cells)])]
        except SandboxError:
            pass
        except BaseException:   # anything else: the sandbox ends here, with everything it started
            self.stopped = self.stopped or "the grader could not read it"
            self.close()
            raise

    # -- plumbing
    def _drain_stderr(self):
        for chunk in iter(lambda: self._proc.stderr.read(4096), b""):
            if len(self._stderr) < 8192:
                self._stderr += chunk[:8192 - len(self._stderr)]

    def _stop(self, why: str):
        if self.stopped is None:
            self.stopped = why
        self.close()
        raise SandboxError(self.stopped)

    def _send(self, obj, deadline: float | None = None):
        if self.stopped is not None:
            raise SandboxError(self.stopped)
        try:
            data = wire.encode(obj)
        except wire.WireError as exc:
            self._stop(f"its notebook is too large to send ({exc})")
        view = memoryview(struct.pack(">Q", len(data)) + data)
        deadline = self._deadline if deadline is None else deadline
        fd = self._proc.stdin.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._stop("it passed its time limit (it stopped reading)")
                if not sel.select(timeout=min(left, 1.0)):
                    continue
                try:
                    n = os.write(fd, view)
                except BlockingIOError:
                    continue
                except (BrokenPipeError, OSError):
                    self._stop(self._why_dead())
                view = view[n:]

    def _read(self, n: int, deadline: float) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                self._stop("it passed its time limit")
            if not self._sel.select(timeout=min(left, 1.0)):
                continue
            chunk = os.read(self._proc.stdout.fileno(), min(n - len(buf), 1 << 20))
            if not chunk:
                self._stop(self._why_dead())
            buf += chunk
        return bytes(buf)

    def _receive(self, deadline: float):
        (n,) = struct.unpack(">Q", self._read(8, deadline))
        if n > wire.MAX_BYTES:
            self._stop("it sent a message over the size limit")
        try:
            return wire.decode(self._read(n, deadline))
        except wire.WireError as exc:
            self._stop(f"it sent something that is not plain data ({exc})")

    def _why_dead(self) -> str:
        try:
            code = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "it closed its output"
        if code < 0:
            sig = signal.Signals(-code).name
            return {"SIGXCPU": "it used up its CPU time", "SIGKILL": "it was killed (out of time or memory?)"}.get(
                sig, f"it ended with {sig}")
        if self._stderr.startswith(b"bwrap:"):
            return "the sandbox could not start: " + self._stderr.decode(errors="replace").strip()[:300]
        return f"its process ended (exit status {code})"

    # -- requests
    def _request(self, req: dict, timeout: float):
        deadline = min(self._deadline, time.monotonic() + timeout + 5.0)
        self._send(req, deadline)
        reply = self._receive(deadline)
        if not isinstance(reply, dict) or not ("result" in reply or "error" in reply):
            self._stop("it broke the protocol")
        return reply

    def call_many(self, name: str, calls, *, record: int = 0, timeout: float = 60.0):
        """``[name(*args) for args in calls]`` in one request; a Generator that several calls share is one object
        there too, and its consumed state follows. Returns ``(results, recorded)``: ``recorded[i]`` holds the
        states of the batch's generators after call ``i`` (for ``i < record``). The first exception a call
        raises is raised here, after the generators' states are brought back."""
        table, index = [], {}

        def ref(x):
            if isinstance(x, np.random.Generator):
                if id(x) not in index:
                    index[id(x)] = len(table)
                    table.append(x)
                return wire.RngRef(index[id(x)])
            if isinstance(x, (list, tuple)):
                return type(x)(ref(v) for v in x)
            return x

        encoded = [[ref(a) for a in args] for args in calls]
        reply = self._request({"op": "call_many", "name": name, "calls": encoded, "record": int(record),
                               "rngs": table, "timeout": float(timeout)}, timeout)
        states = reply.get("rngs")
        if isinstance(states, list) and len(states) == len(table):
            for gen, state in zip(table, states):
                if isinstance(state, dict):
                    try:
                        gen.bit_generator.state = state
                    except (TypeError, ValueError, KeyError):
                        pass
        if "error" in reply:
            raise _as_exception(reply["error"])
        results, recorded = reply["result"], reply.get("recorded", [])
        if not isinstance(results, list) or len(results) != len(calls) or not isinstance(recorded, list):
            raise StudentError("the answers of a batch of calls did not come back whole")
        return results, recorded

    def value(self, name: str):
        """The value of the notebook's global ``name`` (plain data), or raises the NameError across."""
        reply = self._request({"op": "value", "name": name}, 10.0)
        if "error" in reply:
            raise _as_exception(reply["error"])
        return reply["result"]

    def call(self, name: str, args=(), kwargs=None, *, timeout: float = 60.0):
        """Call the notebook's ``name(*args, **kwargs)``; a Generator argument's state follows the call."""
        reply = self._request({"op": "call", "name": name, "args": list(args), "kwargs": dict(kwargs or {}),
                               "timeout": float(timeout)}, timeout)
        if "error" in reply:
            raise _as_exception(reply["error"])
        states = reply.get("rngs")
        if isinstance(states, list) and len(states) == len(args):
            for arg, state in zip(args, states):
                if isinstance(arg, np.random.Generator) and isinstance(state, dict):
                    try:
                        arg.bit_generator.state = state
                    except (TypeError, ValueError, KeyError):
                        pass
        return reply["result"]

    def close(self):
        """Kill the sandbox and everything it started (its PID namespace ends with it)."""
        if self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.cgroups.kill_and_remove()
        for f in (self._proc.stdin, self._proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._sel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


_STATUSES = ("ok", "error", "timeout")


def _cell_report(index: int, c) -> dict:
    """A cell's report as the grader keeps it: the runner's word, checked (it runs beside the student's code)."""
    c = c if isinstance(c, dict) else {}
    status = c.get("status") if c.get("status") in _STATUSES else "error"
    return {"cell": index, "status": status, "detail": str(c.get("detail", ""))[:300],
            "stderr": bool(c.get("stderr")), "output": str(c.get("output", ""))[:2000]}


_BUILTIN_EXCEPTIONS = {name: obj for name, obj in vars(builtins).items()
                       if isinstance(obj, type) and issubclass(obj, Exception)}


def _as_exception(err) -> Exception:
    if isinstance(err, wire.RemoteError):
        cls = _BUILTIN_EXCEPTIONS.get(err.type_name)
        if cls is not None:
            try:
                return cls(str(err))
            except TypeError:   # an exception class with required arguments
                pass
        exc = StudentError(f"{err.type_name}: {err}")
        return exc
    return StudentError("an error the grader could not read")


class RemoteFunction:
    """The student's function ``name`` in a :class:`Sandbox`, callable from the hidden tests.

    It is a plain callable of the grader's process: the checkers' static look at a function finds nothing in
    it (the forbidden code is absent from the sandbox instead), and each call takes at most ``timeout``
    seconds. A stopped sandbox makes every call raise :class:`SandboxError`, which the checkers report as
    the function raising.
    """

    def __init__(self, sandbox: Sandbox, name: str, *, timeout: float = 60.0):
        self._sandbox, self.__name__, self.__qualname__ = sandbox, name, name
        self._timeout = timeout

    def __call__(self, *args, **kwargs):
        return self._sandbox.call(self.__name__, args, kwargs, timeout=self._timeout)

    def call_many(self, calls, *, record: int = 0):
        """Many calls in one round trip (:meth:`Sandbox.call_many`): the checkers' statistical loops use it."""
        return self._sandbox.call_many(self.__name__, calls, record=record, timeout=self._timeout)

    def __repr__(self):
        return f"<the student's function {self.__name__}>"
