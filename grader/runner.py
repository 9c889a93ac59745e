"""The sandbox side of grading: run one submission's cells, then answer the grader's requests with plain data.

Started by :mod:`grader.sandbox` inside bubblewrap, as ``python -I runner.py``, with this file, ``wire.py``
and a staged copy of ``dpcourse`` (in which the code the assignment asks students to write is replaced by a
stub that raises, and the in-book checkers are stubs) mounted read-only. Nothing here is trusted by the
grader: the student's code runs in this process and may change anything in it, including this file's
functions. The grader only reads messages from it, decodes them strictly (:mod:`wire`) and judges what
they hold.

Protocol, on the file descriptors that were stdin and stdout when the process started (moved away before
any student code runs, so that ``print`` cannot reach them by accident): each message is an 8-byte
big-endian length and a :mod:`wire` document. The grader sends ``{"cells": [...], "cell_timeout": s}``;
the runner executes the cells in order in one IPython shell (magics work; a cell that raises or passes its
time limit is recorded and the next cell runs) and replies with each cell's status. Then it answers
requests until ``{"op": "bye"}`` or end of input: ``{"op": "value", "name": n}`` returns the value of
global ``n``; ``{"op": "call", "name": n, "args": [...], "kwargs": {...}, "timeout": s}`` calls it and
returns ``{"result": r, "rngs": [states of the Generator arguments after the call]}``, or
``{"error": exception}``.
"""

import io
import os
import signal
import struct
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), "/sandbox/lib"]

import wire  # noqa: E402  (the copy mounted beside this file)

MAX_CELL_OUTPUT = 2000


def _read_exact(fd, n):
    chunks, got = [], 0
    while got < n:
        b = os.read(fd, min(n - got, 1 << 20))
        if not b:
            return None
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _receive(fd):
    head = _read_exact(fd, 8)
    if head is None:
        return None
    (n,) = struct.unpack(">Q", head)
    if n > wire.MAX_BYTES:
        raise SystemExit(3)
    data = _read_exact(fd, n)
    return None if data is None else wire.decode(data)


def _send(fd, obj):
    try:
        data = wire.encode(obj)
    except (wire.WireError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        data = wire.encode({"error": wire.WireError(f"the result is not plain data: {str(exc)[:300]}")})
    os.write(fd, struct.pack(">Q", len(data)))
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _Sink(io.TextIOBase):
    """Where the student's prints go during the grader's calls: counted and dropped."""

    def writable(self):
        return True

    def write(self, s):
        return len(s)


def _alarm(_signum, _frame):
    raise KeyboardInterrupt("time limit")


def _with_timeout(seconds, fn, *args, **kwargs):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, max(float(seconds), 0.001))
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main():
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    log = os.open("/tmp/runner-output.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.stdin = open(os.devnull)  # noqa: SIM115
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), write_through=True)
    sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", buffering=0), write_through=True)

    job = _receive(proto_in)
    if job is None:
        return
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance(colors="NoColor")
    shell.showtraceback = _short_traceback(shell)
    reports = []
    for i, source in enumerate(job["cells"]):
        status, detail = "ok", ""
        with capture_output() as cap:
            try:
                result = _with_timeout(job["cell_timeout"], shell.run_cell, source, store_history=False,
                                       silent=False)
                err = result.error_before_exec or result.error_in_exec
            except KeyboardInterrupt as exc:
                err = exc
            except BaseException as exc:  # noqa: BLE001 - a cell may raise SystemExit and the like
                err = exc
        if err is not None:
            status = "timeout" if isinstance(err, KeyboardInterrupt) else "error"
            detail = f"{type(err).__name__}: {str(err)[:300]}"
        reports.append({"cell": i, "status": status, "detail": detail,
                        "stderr": len(cap.stderr) > 0, "output": (cap.stdout + cap.stderr)[:MAX_CELL_OUTPUT]})
    _send(proto_out, {"cells": reports})

    ns = shell.user_ns
    sink = _Sink()
    while True:
        req = _receive(proto_in)
        if req is None or req.get("op") == "bye":
            return
        name = req.get("name")
        if name not in ns:
            _send(proto_out, {"error": NameError(f"`{name}` is not defined when the notebook has run")})
            continue
        if req["op"] == "value":
            _send(proto_out, {"result": ns[name]})
            continue
        if req["op"] == "call_many":
            _send(proto_out, _call_many(ns[name], req, sink))
            continue
        fn = ns[name]
        args, kwargs = list(req.get("args", [])), dict(req.get("kwargs", {}))
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = sink
        try:
            out = _with_timeout(req["timeout"], fn, *args, **kwargs)
            reply = {"result": out}
        except KeyboardInterrupt:
            reply = {"error": TimeoutError("the call did not end within its time limit")}
        except BaseException as exc:  # noqa: BLE001 - the student's function may raise anything
            reply = {"error": exc}
        finally:
            sys.stdout, sys.stderr = saved
        if "result" in reply:
            reply["rngs"] = [a.bit_generator.state if isinstance(a, wire.np.random.Generator) else None
                             for a in args]
        _send(proto_out, reply)


def _substitute(x, table):
    if isinstance(x, wire.RngRef):
        return table[x.index]
    if isinstance(x, list):
        return [_substitute(v, table) for v in x]
    if isinstance(x, tuple):
        return tuple(_substitute(v, table) for v in x)
    if isinstance(x, dict):
        return {k: _substitute(v, table) for k, v in x.items()}
    return x


def _call_many(fn, req, sink):
    """Calls of ``fn`` in turn, on argument lists whose generators are the batch's table (shared objects)."""
    table = list(req.get("rngs", []))
    calls = [_substitute(list(a), table) for a in req["calls"]]
    record = int(req.get("record", 0))
    results, recorded = [], []
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = sink

    def run():
        for i, args in enumerate(calls):
            results.append(fn(*args))
            if i < record:
                recorded.append([g.bit_generator.state for g in table])

    try:
        _with_timeout(req["timeout"], run)
        reply = {"result": results}
    except KeyboardInterrupt:
        reply = {"error": TimeoutError("the calls did not end within their time limit"), "done": len(results)}
    except BaseException as exc:  # noqa: BLE001 - the student's function may raise anything
        reply = {"error": exc, "done": len(results)}
    finally:
        sys.stdout, sys.stderr = saved
    reply["rngs"] = [g.bit_generator.state for g in table]
    reply["recorded"] = recorded
    if "error" in reply:
        reply["partial"] = results
    return reply


def _short_traceback(shell):
    def show(*args, **kwargs):
        etype, value, _ = sys.exc_info()
        if etype is not None:
            print(f"{etype.__name__}: {value}"[:MAX_CELL_OUTPUT], file=sys.stderr)
    return show


if __name__ == "__main__":
    main()
