"""Plain data across the sandbox boundary: what the grader sends a submission and what it reads back.

Both sides use this module (the sandbox gets a read-only copy of this one file). A message is one JSON
document (Python's ``json``, so NaN and infinities pass) holding only: None, bool, int, float, str, lists,
and tagged objects for tuples, dicts with any plain keys, numpy arrays of bool, integer or float dtype, numpy
random ``Generator`` objects over numpy's own bit generators (their ``bit_generator.state``, itself plain
data), and raised exceptions (their type's name and message). Nothing else crosses: no pickle, no object
with behaviour, no callable. :func:`decode` is strict, since the sandbox side runs the student's code: a
wrong tag, an unknown dtype or bit generator, or a document over the size or depth limits raises
:class:`WireError`.
"""

from __future__ import annotations

import base64
import json
import math

import numpy as np

__all__ = ["WireError", "decode", "encode", "MAX_BYTES"]

MAX_BYTES = 64 * 2**20      # a message (a call's arguments, a result) of at most 64 MiB
MAX_DEPTH = 32
_DTYPE_KINDS = "biuf"       # bool, signed and unsigned integers, floats
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")


class WireError(ValueError):
    """A message that is not plain data of the kinds above (or is too large or too deep)."""


def _enc(x, depth):
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return int(x) if isinstance(x, int) else float(x)
    if isinstance(x, np.generic) and not isinstance(x, np.ndarray):
        if x.dtype.kind not in _DTYPE_KINDS:
            raise WireError(f"a numpy scalar of dtype {x.dtype} is not plain data")
        return x.item()
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in _DTYPE_KINDS:
            raise WireError(f"an array of dtype {x.dtype} is not plain data (bool, integer or float only)")
        a = np.ascontiguousarray(x)
        return {"__nd__": a.dtype.str, "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode()}
    if isinstance(x, np.random.Generator):
        bg = x.bit_generator
        name = type(bg).__name__
        if name not in _BIT_GENERATORS or type(bg) is not getattr(np.random, name):
            raise WireError(f"a Generator over {name} is not plain data")
        return {"__rng__": name, "state": _enc(bg.state, depth + 1)}
    if isinstance(x, RngRef):
        return {"__rngref__": int(x.index)}
    if isinstance(x, BaseException):
        return {"__exc__": type(x).__name__, "message": str(x)[:2000]}
    if isinstance(x, tuple):
        return {"__tuple__": [_enc(v, depth + 1) for v in x]}
    if isinstance(x, list):
        return [_enc(v, depth + 1) for v in x]
    if isinstance(x, dict):
        return {"__dict__": [[_enc(k, depth + 1), _enc(v, depth + 1)] for k, v in x.items()]}
    raise WireError(f"a value of type {type(x).__name__} is not plain data")


def encode(x) -> bytes:
    """The message for ``x`` (plain data only, see the module's docstring); WireError otherwise."""
    data = json.dumps(_enc(x, 0), allow_nan=True, separators=(",", ":")).encode()
    if len(data) > MAX_BYTES:
        raise WireError(f"a message of {len(data)} bytes is over the limit of {MAX_BYTES}")
    return data


class RngRef:
    """In a batch of calls, the k-th generator of the batch's table (the same object in every call that names it)."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class RemoteError(Exception):
    """An exception raised on the other side, by name (only its type's name and message crossed)."""

    def __init__(self, type_name: str, message: str):
        super().__init__(message)
        self.type_name = type_name


def _dec(x, depth):
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x
    if isinstance(x, list):
        return [_dec(v, depth + 1) for v in x]
    if not isinstance(x, dict) or len(x) == 0:
        raise WireError("an untagged object")
    if set(x) == {"__tuple__"} and isinstance(x["__tuple__"], list):
        return tuple(_dec(v, depth + 1) for v in x["__tuple__"])
    if set(x) == {"__dict__"} and isinstance(x["__dict__"], list):
        out = {}
        for pair in x["__dict__"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise WireError("a malformed dict entry")
            key = _dec(pair[0], depth + 1)
            # keys are short strings or small ints: colliding hashes (ints equal mod 2**61 - 1) cannot make a
            # dict quadratic to build
            if not ((isinstance(key, str) and len(key) <= 256) or
                    (isinstance(key, int) and not isinstance(key, bool) and abs(key) < 2**31)):
                raise WireError("a dict key that is not a short string or a small integer")
            out[key] = _dec(pair[1], depth + 1)
        return out
    if set(x) == {"__nd__", "shape", "b64"}:
        try:
            dtype = np.dtype(x["__nd__"])
        except TypeError as exc:
            raise WireError("an unknown dtype") from exc
        shape = x["shape"]
        if dtype.kind not in _DTYPE_KINDS or not isinstance(shape, list) or len(shape) > 32 or \
                not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise WireError("a malformed array")
        if not isinstance(x["b64"], str):
            raise WireError("a malformed array")
        raw = base64.b64decode(x["b64"].encode(), validate=True)
        if len(raw) != dtype.itemsize * math.prod(shape):
            raise WireError("an array whose data does not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if set(x) == {"__rng__", "state"}:
        name = x["__rng__"]
        if name not in _BIT_GENERATORS:
            raise WireError("an unknown bit generator")
        bg = getattr(np.random, name)()
        try:
            bg.state = _dec(x["state"], depth + 1)
        except (TypeError, ValueError, KeyError) as exc:
            raise WireError("a malformed bit generator state") from exc
        return np.random.Generator(bg)
    if set(x) == {"__rngref__"} and isinstance(x["__rngref__"], int) and 0 <= x["__rngref__"] < 1024:
        return RngRef(x["__rngref__"])
    if set(x) == {"__exc__", "message"} and isinstance(x["__exc__"], str) and isinstance(x["message"], str):
        return RemoteError(x["__exc__"][:200], x["message"][:2000])
    raise WireError("an unknown tag")


MAX_ITEMS = 2_000_000      # list items, dict entries and array elements in one message


def _count(doc) -> int:
    n, todo = 0, [doc]
    while todo:
        x = todo.pop()
        n += 1
        if n > MAX_ITEMS:
            raise WireError(f"a message of more than {MAX_ITEMS} items")
        if isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
    return n


def decode(data: bytes):
    """The plain data of a message (strict: WireError, and only WireError, on anything else)."""
    if len(data) > MAX_BYTES:
        raise WireError(f"a message of {len(data)} bytes is over the limit of {MAX_BYTES}")
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError, MemoryError) as exc:
        raise WireError("not a JSON document") from exc
    _count(doc)
    try:
        return _dec(doc, 0)
    except WireError:
        raise
    except Exception as exc:  # noqa: BLE001 - bad base64, reshape, bit-generator state: all malformed data
        raise WireError(f"malformed data ({type(exc).__name__})") from exc
