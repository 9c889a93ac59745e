"""The secure samplers' seeded outputs are pinned, bit for bit.

The chapters' stored outputs depend on the random streams of ``laplace_mechanism``, ``gaussian_mechanism``,
``dp_mean``, ``discrete_laplace``, ``discrete_gaussian`` and ``geometric_mechanism``: a change of stream must be
meant. ``tests/golden_noise_cases.py`` lists the cases (scales from 1e-3 to 2**61/3, int64 and exact-integer
paths, five bit generators, the generator's state after each case), each either all releases of one value or
all vectorized; ``tests/data/golden_noise.json`` holds their outputs. The vectorized cases are those of
commit da9b8b9 (issue 24); the releases of one value were regenerated when they began to draw their uniforms
from raw words (``_release_uniforms``).
"""

import json
from pathlib import Path

from golden_noise_cases import cases, _enc

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_noise.json").read_text())


def test_every_golden_case_is_stored():
    assert sorted(name for name, _ in cases()) == sorted(GOLDEN)


def test_seeded_outputs_are_unchanged():
    changed = [name for name, fn in cases() if _enc(fn()) != GOLDEN[name]]
    assert not changed, f"{len(changed)} seeded outputs changed, first ones: {changed[:5]}"
