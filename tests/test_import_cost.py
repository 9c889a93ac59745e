"""What `import dpcourse` loads: the package docstring and the README promise it loads neither matplotlib nor
the reference libraries, and scipy.stats (about 0.9 s, paid by every notebook kernel) is imported where used."""

import subprocess
import sys

HEAVY = ("matplotlib", "scipy.stats", "scipy.signal", "apache_beam", "pipeline_dp", "dp_accounting", "opendp",
         "diffprivlib")


def heavy_modules_loaded(extra: str = "") -> str:
    """The modules of HEAVY that a fresh interpreter holds after `import dpcourse` (and ``extra``)."""
    code = f"import sys, dpcourse\n{extra}\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_import_dpcourse_loads_no_heavy_module():
    assert heavy_modules_loaded() == ""


def test_the_check_sees_a_heavy_module():
    assert heavy_modules_loaded("import scipy.stats") == "scipy.stats"
