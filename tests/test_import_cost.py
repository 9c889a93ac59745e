"""What `import dpcourse` loads: the package docstring and the README promise it loads neither matplotlib nor
the reference libraries, and scipy.stats (about 0.9 s, paid by every notebook kernel) is imported where used; and
what it changes: no matplotlib setting (the book's figure style is opted in by the book's processes: booktools)."""

import os
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


def test_import_dpcourse_plots_loads_no_heavy_module():
    assert heavy_modules_loaded("import dpcourse.plots, dpcourse.plots.explorer") == ""


def matplotlib_settings_changed_by(imports: str, tmp_path) -> str:
    """The rcParams (figure.hooks among them) that ``imports`` changes in a fresh interpreter, which reads no
    matplotlibrc of the book (none in its directory or in MATPLOTLIBRC)."""
    code = f"import matplotlib as mpl\nbefore = dict(mpl.rcParams)\n{imports}\n" \
           f"print(sorted(k for k, v in mpl.rcParams.items() if v != before[k]))"
    env = {k: v for k, v in os.environ.items() if k != "MATPLOTLIBRC"}
    env["MPLBACKEND"] = "Agg"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                          cwd=tmp_path).stdout.strip()


def test_importing_dpcourse_and_its_figures_changes_no_matplotlib_setting(tmp_path):
    imports = ("import importlib, pkgutil, dpcourse, dpcourse.plots\n"
               "for m in pkgutil.iter_modules(dpcourse.plots.__path__):\n"
               "    importlib.import_module('dpcourse.plots.' + m.name)")
    assert matplotlib_settings_changed_by(imports, tmp_path) == "[]"


def test_the_settings_check_sees_a_change(tmp_path):
    assert matplotlib_settings_changed_by("mpl.rcParams['figure.hooks'] = ['os:getcwd']", tmp_path) \
        == "['figure.hooks']"


def test_import_nbformat_builds_no_uri_grammars():
    """jsonschema is pinned below 4.25 (requirements.in): from 4.25 on, it imports rfc3987-syntax, whose 38 lark
    grammars cost 2 s in every process that imports nbformat (pytest workers, book builds, nbgrader)."""
    code = "import sys, nbformat\nprint(sorted(m for m in ('rfc3987_syntax', 'lark', 'nbformat') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "['nbformat']"
