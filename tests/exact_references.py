"""Reference computations shared by the tests of the exact samplers, written from the lemmas, not the code.

Import by name (tests/conftest.py puts this folder on sys.path).
"""

import math
from fractions import Fraction


def lemma_uniforms(words, width, ks):
    """The uniforms of lemma noise-lem-word-uniform from raw words, via their binary digits as strings.

    Each word's bits are read lowest first; a uniform on {0..k-1} takes ``bit_length(k - 1)`` bits and is
    redrawn while >= k. Returns (the uniforms, the number of words they used).
    """
    bits = "".join(format(w, f"0{width}b")[::-1] for w in words)
    out, pos = [], 0
    for k in ks:
        b = (k - 1).bit_length()
        while True:
            u = int(bits[pos:pos + b][::-1] or "0", 2)
            pos += b
            if u < k:
                break
        out.append(u)
    return out, -(-pos // width)


def selection_lattice(scores, sens):
    """Report noisy max's public lattice: g = 2**(floor(log2 sens) - 5); the scores rounded to multiples of g
    (half up) and D = ceil(sens / g), all exact."""
    e = 0
    while Fraction(2) ** e > Fraction(sens):
        e -= 1
    while Fraction(2) ** (e + 1) <= Fraction(sens):
        e += 1
    g = Fraction(2) ** (e - 5)
    return [math.floor(Fraction(s) / g + Fraction(1, 2)) for s in scores], math.ceil(Fraction(sens) / g)
