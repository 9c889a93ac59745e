"""dpcourse.portable: exp, log and a sum that give the same bits on every CPU, and the releases that use them."""

import math
import os
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from dpcourse import portable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JITTER = os.path.join(ROOT, "tools", "ulp_jitter")


def _ulps(got: float, exact) -> float:
    if exact == 0:
        return 0.0 if got == 0 else math.inf
    unit = math.ulp(float(exact)) if abs(exact) >= 2.2250738585072014e-308 else 5e-324
    return float(abs(mpmath.mpf(got) - exact) / unit)


def _exp_points():
    rng = np.random.default_rng(11)
    ln2 = math.log(2)
    halfway = np.array([(k + 0.5) * ln2 for k in range(-1000, 1000, 37)])   # |r| at its largest
    return np.concatenate([rng.uniform(-745, 709.78, 400), rng.uniform(-2, 2, 300), rng.uniform(-1e-8, 1e-8, 50),
                           halfway, np.nextafter(halfway, np.inf), [0.0, -0.0, 1e-300, -1e-300, 709.78, -708.39,
                                                                    -740.0, -744.4, 1.0, -1.0, 0.5 * ln2]])


def test_exp_is_within_two_ulps_of_the_exact_value():
    mpmath.mp.prec = 140
    xs = _exp_points()
    got = portable.exp(xs)
    worst = max(_ulps(float(g), mpmath.exp(mpmath.mpf(float(x)))) for g, x in zip(got, xs))
    assert worst <= 2.0, worst


def test_log_is_within_two_ulps_of_the_exact_value():
    mpmath.mp.prec = 140
    rng = np.random.default_rng(12)
    ys = np.concatenate([np.exp(rng.uniform(-700, 700, 400)), rng.uniform(0.5, 2.0, 300),
                         1.0 + rng.uniform(-1e-7, 1e-7, 50), [5e-324, 1e-310, 2.2250738585072014e-308, 1.0, 2.0,
                                                              0.7071067811865476, 0.7071067811865475, 1.7976931348623157e308]])
    got = portable.log(ys)
    worst = max(_ulps(float(g), mpmath.log(mpmath.mpf(float(y)))) for g, y in zip(got, ys))
    assert worst <= 2.0, worst


def test_special_values():
    e = portable.exp(np.array([np.inf, -np.inf, np.nan, 709.8, -745.2, 0.0]))
    assert e[0] == np.inf and e[1] == 0.0 and np.isnan(e[2]) and e[3] == np.inf and e[4] == 0.0 and e[5] == 1.0
    lg = portable.log(np.array([0.0, -1.0, np.inf, np.nan, 1.0, -np.inf]))
    assert lg[0] == -np.inf and np.isnan(lg[1]) and lg[2] == np.inf and np.isnan(lg[3]) and lg[4] == 0.0
    assert np.isnan(lg[5])
    assert portable.pairwise_sum([]) == 0.0 and portable.pairwise_sum([2.5]) == 2.5


def test_pairwise_sum_is_the_fixed_tree():
    # values for which the association order matters: the documented tree (neighbours first, an odd level
    # padded with 0) gives one float, a left-to-right sum another
    v = [1e16, 1.0, -1e16, 1.0, 1.0]
    lvl = list(v)
    while len(lvl) > 1:
        if len(lvl) % 2:
            lvl.append(0.0)
        lvl = [lvl[i] + lvl[i + 1] for i in range(0, len(lvl), 2)]
    left_to_right = 0.0
    for t in v:
        left_to_right += t
    assert lvl[0] != left_to_right
    assert portable.pairwise_sum(np.array(v)) == lvl[0]
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10_001) * 10.0 ** rng.integers(-8, 8, 10_001)
    assert abs(portable.pairwise_sum(x) - math.fsum(x)) <= 15 * 2.0**-53 * float(np.abs(x).sum())


def _scalar_exp(x: float) -> float:
    """The same algorithm in Python floats (each operation IEEE-rounded, as numpy's +, -, * and / are)."""
    k = float(round(x * portable._INV_LN2))      # round half to even, as np.rint
    r = (x - k * portable._LN2_HI) - k * portable._LN2_LO
    p = portable._EXP_COEFFS[0]
    for c in portable._EXP_COEFFS[1:] + (1.0, 1.0):
        p = p * r + c
    k1 = math.floor(k / 2.0)
    return (p * 2.0**k1) * 2.0 ** (k - k1)


def test_numpy_evaluation_uses_only_ieee_rounded_operations():
    # bit-equal to a scalar evaluation in Python floats: no vectorized transcendental (whose last bit depends
    # on the CPU) is involved; Python's float +, -, * are the IEEE operations every CPU rounds alike
    xs = _exp_points()
    xs = xs[(xs > -700) & (xs < 700)]
    assert [float(v) for v in portable.exp(xs)] == [_scalar_exp(float(x)) for x in xs]


_PROBE = """
import hashlib, numpy as np, dpcourse
from dpcourse import portable
rng = np.random.default_rng(5)
x = rng.uniform(-700, 700, 20000); y = np.ldexp(rng.uniform(0.5, 1.0, 20000), rng.integers(-1000, 1000, 20000))
h = hashlib.sha256()
for a in (portable.exp(x), portable.log(y), np.array([portable.pairwise_sum(x)])):
    h.update(np.ascontiguousarray(a).tobytes())
# seeded medians of 31 datasets: with numpy's exp and log in the weights, some of these draws differ between
# dispatch levels (a weight's last bit moves the integer total across a boundary of numpy's bounded draw)
for n in range(5, 400, 13):
    mass = np.random.default_rng(n).normal(4200, 800, n)
    h.update(dpcourse.dp_quantile(mass, 0.5, 2000.0, 7000.0, 1.0, rng=n, size=20, resolution=4096).tobytes())
print(h.hexdigest())
"""


def _probe(env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_same_bits_at_every_dispatch_level_and_under_jittered_transcendentals():
    """The functions and a seeded dp_quantile give the same bits with numpy's upper SIMD levels switched off
    (where the host has them) and with every numpy transcendental moved by one ulp (a CPU this host is not)."""
    base = _probe({})
    assert _probe({"NPY_DISABLE_CPU_FEATURES": "AVX512_SPR AVX512_ICL X86_V4 X86_V3"}) == base
    jitter = {"DPCOURSE_ULP_JITTER": "1", "PYTHONPATH": JITTER + os.pathsep + os.environ.get("PYTHONPATH", "")}
    assert _probe(jitter) == base


def test_the_jitter_tool_really_moves_numpy_results():
    # the check above can fail: under the tool np.exp no longer gives this host's bits
    code = "import numpy as np; x = np.linspace(0.1, 5, 1000); print(np.exp(x).tobytes().hex()[:4000])"
    env = dict(os.environ, DPCOURSE_ULP_JITTER="1", PYTHONPATH=JITTER)
    moved = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    clean = {k: v for k, v in os.environ.items() if k != "DPCOURSE_ULP_JITTER"}
    plain = subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True, text=True, timeout=60)
    assert moved.returncode == 0 and plain.returncode == 0
    assert moved.stdout != plain.stdout
