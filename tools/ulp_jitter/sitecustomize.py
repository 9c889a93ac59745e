"""Make numpy's transcendental functions behave like those of another CPU, to find outputs that depend on them.

numpy computes ``exp``, ``log``, ``tanh``, ``power`` and their kin with code chosen at run time for the
CPU (AVX-512, AVX2, NEON or the C library), and the results differ in the last bit from one to another.
A stored notebook output or a seeded release that depends on those bits passes on one computer and fails
on another. ``NPY_DISABLE_CPU_FEATURES`` can only switch a host *down* to the levels below its own; this
module simulates a level the host does not have: with ``DPCOURSE_ULP_JITTER=1`` set and this folder on
``PYTHONPATH``, every float result of the functions below is moved by one unit in the last place, up or
down by a fixed rule of its own bits (so the same input always gives the same output, as on a real CPU);
``DPCOURSE_ULP_JITTER=-1`` moves each the other way.
What still prints the same and draws the same samples does not depend on the last bit of any of them.

``.ci/run`` runs the chapters and the numeric tests this way. It is a test tool, not part of the course.
"""
import os

_DIRECTION = {"1": 1, "-1": 0}.get(os.environ.get("DPCOURSE_ULP_JITTER", ""))

if _DIRECTION is not None:
    import functools

    import numpy as _np

    # The float64 functions whose results differ between numpy's dispatch levels on x86-64 (measured with
    # NPY_DISABLE_CPU_FEATURES on an AVX-512 host), plus their relatives that reach the C library.
    _NAMES = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "logaddexp", "logaddexp2", "power",
              "float_power", "cbrt", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh",
              "cosh", "tanh", "arcsinh", "arccosh", "arctanh")

    def _nudge(value):
        """``value`` moved by one ulp: up where its last bit is 1 (0 with -1), down elsewhere (finite, not whole)."""
        arr = _np.asarray(value)
        if arr.dtype not in (_np.float64, _np.float32):
            return value
        bits = arr.view(_np.uint64 if arr.dtype == _np.float64 else _np.uint32)
        up = (bits & 1) == _DIRECTION
        moved = _np.where(up, _np.nextafter(arr, _np.inf), _np.nextafter(arr, -_np.inf))
        # whole numbers (exp(0) = 1, tanh(40) = 1, 2.0 ** 3 = 8) are exact in every implementation: kept
        # (and subnormal results: expm1(5e-324) is 5e-324 everywhere, not a 100% error)
        keep = (~_np.isfinite(arr) | (_np.floor(arr) == arr) | ~_np.isfinite(moved)
                | (_np.abs(arr) < _np.finfo(arr.dtype).smallest_normal))
        moved = _np.where(keep, arr, moved).astype(arr.dtype)
        if isinstance(value, _np.ndarray):
            value[...] = moved
            return value
        return moved[()]

    def _wrap(ufunc):
        @functools.wraps(ufunc)
        def jittered(*args, **kwargs):
            out = ufunc(*args, **kwargs)
            if isinstance(out, tuple):
                return tuple(_nudge(o) for o in out)
            return _nudge(out)

        jittered.__wrapped_ufunc__ = ufunc
        for attr in ("nin", "nout", "nargs", "types", "identity", "reduce", "accumulate", "outer", "at"):
            setattr(jittered, attr, getattr(ufunc, attr))
        return jittered

    for _name in _NAMES:
        setattr(_np, _name, _wrap(getattr(_np, _name)))
