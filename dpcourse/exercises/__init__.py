"""Checkers for the book's exercises.

A checker looks at a student's answer and says whether it is right, with a message that helps find the
mistake without revealing the answer. It returns a :class:`CheckResult`, which notebooks display as its
message and tests inspect through ``.passed``.

Rules every checker follows (the helpers below implement them once):

* An answer that is not a valid answer at all (a string such as "0.3", a bool, NaN, +-inf, a value
  outside the range the question allows) is refused as invalid *before* any other feedback.
* A numeric answer is accepted within a stated relative precision (:data:`DEFAULT_REL_TOL`, 0.1 %, so
  a value typed to four significant digits passes), and the message says which precision was asked.
* Feedback names a recognised mistake (a known slip) or says the value is not yet within the
  precision; it never says "too small" or "too large", so the answer cannot be found by bisection on
  the messages.
* A coding exercise may forbid library code (the function it asks the student to write, and the private
  helpers that compute its answer): :func:`call_student` refuses a function that refers to it or runs it,
  recognising the code by identity (:class:`Forbidden`), however it is reached.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import itertools
import math
import numbers
import os
import sys
import sysconfig
import threading
import types
from dataclasses import dataclass

import numpy as np

__all__ = ["CheckResult", "Forbidden", "call_many", "call_student", "check_number", "match_slip", "not_yet",
           "parse_number", "DEFAULT_REL_TOL"]

DEFAULT_REL_TOL = 1e-3


@dataclass(frozen=True)
class CheckResult:
    """The verdict of an exercise checker: ``passed`` and a ``message`` for the student."""

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return ("Correct. " if self.passed else "Not yet. ") + self.message

    def __str__(self) -> str:
        return repr(self)


# ------------------------------------------------------------------------------------------------------------
# Forbidden library code: recognised by the identity of its code objects, however it is reached.


def _functions_of(member) -> list:
    """The Python functions a class attribute holds (methods, static and class methods, property accessors)."""
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if isinstance(member, property):
        return [f for f in (member.fget, member.fset, member.fdel) if f is not None]
    if isinstance(member, functools.cached_property):
        return [member.func]
    return [member] if isinstance(member, types.FunctionType) else []


def _display_name(obj) -> str:
    """``dpcourse.name`` for what the package exports at its top, else ``module.qualname``."""
    import dpcourse

    name = getattr(obj, "__name__", type(obj).__name__)
    if getattr(dpcourse, name, None) is obj:
        return f"dpcourse.{name}"
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', name)}"


def _own_code(obj) -> list[types.CodeType]:
    """The code objects of a function (unwrapped) or of a class's methods, with the code nested in them."""
    if isinstance(obj, type):
        fns = [fn for klass in obj.__mro__ if klass.__module__.startswith("dpcourse")
               for member in vars(klass).values() for fn in _functions_of(member)]
    else:
        fn = inspect.unwrap(obj)
        if not isinstance(getattr(fn, "__code__", None), types.CodeType):
            raise TypeError(f"Forbidden takes Python functions and classes, got {type(obj).__name__}")
        fns = [fn]
    out, todo = [], [fn.__code__ for fn in fns]
    while todo:
        code = todo.pop()
        out.append(code)
        todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return out


def _with_private_helpers(obj) -> list:
    """``obj`` and the private functions and classes of its own module that its code names, transitively.

    A public function's answer is often computed by a helper next to it (``_node_parameter`` next to
    ``TreeCounter``): a student who calls the helper directly reaches the answer as surely. Helpers of
    other modules are not followed (a checker lists those it needs by hand).
    """
    out, todo, seen = [], [obj], set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        out.append(x)
        module = sys.modules.get(getattr(x, "__module__", None) or "")
        if module is None:
            continue
        for code in _own_code(x):
            for name in code.co_names:
                if not name.startswith("_") or name.startswith("__"):
                    continue
                y = vars(module).get(name)
                fn = inspect.unwrap(y) if callable(y) and not isinstance(y, type) else y
                if isinstance(fn, (types.FunctionType, type)) and getattr(fn, "__module__", None) == module.__name__:
                    todo.append(y)   # a wrapper (lru_cache) as it is: a cached call runs no code of its own
    return out


class Forbidden:
    """The library code an exercise asks the student to write rather than call.

    Built from functions and classes (or ``(module, name)`` pairs naming them). Each brings its code object
    (a class, those of its methods), the code nested in it (inner functions, lambdas, comprehensions), and
    the same for the private functions and classes of its module that it calls, transitively: the helpers
    that compute its answer. ``allow`` lists the library functions the exercise lets the student use; the
    private helpers they call are left out (a helper shared by a forbidden and an allowed function stays
    usable), while the functions given in ``items`` are forbidden whatever calls them.

    Two things are then recognised, by identity rather than by name, so that an alias, a default argument,
    a list or dict holding the function, a ``functools.partial``, a lambda around it, another module's
    import of it or ``getattr`` with its name as a string all count:

    * :meth:`name_of` tells whether an object *is* forbidden (the function itself, a wrapper whose
      ``__wrapped__`` it is, a function with its code, the class, or one of its instances);
    * :meth:`name_of_code` tells whether a running frame executes forbidden code (see :func:`call_student`).

    ``tests/test_exercises_forbidden.py`` traces each checker's forbidden function on the checker's own
    case: all the package code that runs must be forbidden, run by an honest solution too, or listed there
    as validation or sampling only.
    """

    __slots__ = ("_codes", "_objects", "_keep")

    def __init__(self, *items, allow=()):
        self._codes: dict[int, str] = {}
        self._objects: dict[int, str] = {}
        self._keep: list = []  # the code objects and objects, so that their ids stay theirs
        allowed = {id(h) for a in allow for h in _with_private_helpers(a)}
        for item in items:
            if isinstance(item, Forbidden):
                self._codes.update(item._codes)
                self._objects.update(item._objects)
                self._keep += item._keep
                continue
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], types.ModuleType):
                module, attr = item
                if attr not in vars(module):
                    continue
                item = vars(module)[attr]
            self._add(item, _display_name(item))
            for helper in _with_private_helpers(item)[1:]:
                if id(helper) not in allowed:
                    self._add(helper, _display_name(helper))

    def _add(self, obj, name: str) -> None:
        self._object(obj, name)
        if not isinstance(obj, type):
            self._object(inspect.unwrap(obj), name)
        for code in _own_code(obj):
            self._codes.setdefault(id(code), name)
            self._keep.append(code)

    def _object(self, obj, name: str) -> None:
        self._objects.setdefault(id(obj), name)
        self._keep.append(obj)

    def _code(self, code: types.CodeType, name: str) -> None:
        if id(code) in self._codes:
            return
        self._codes[id(code)] = name
        self._keep.append(code)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                self._code(const, name)

    def __bool__(self) -> bool:
        return bool(self._codes)

    def __len__(self) -> int:
        return len(self._codes)

    def codes(self) -> list[types.CodeType]:
        """The forbidden code objects."""
        return [c for c in self._keep if isinstance(c, types.CodeType)]

    def name_of_code(self, code) -> str | None:
        """The display name of the forbidden function whose code ``code`` is, or None."""
        return self._codes.get(id(code))

    def name_of(self, obj) -> str | None:
        """The display name if ``obj`` is a forbidden function or class, or an instance of a forbidden class."""
        name = self._objects.get(id(obj))
        if name is None and not isinstance(obj, type):
            name = self._objects.get(id(type(obj)))
        if name is None and isinstance(obj, types.FunctionType):
            name = self._codes.get(id(obj.__code__))  # a copy of a forbidden function, same code
        return name


def _as_forbidden(forbidden) -> Forbidden:
    return forbidden if isinstance(forbidden, Forbidden) else Forbidden(*forbidden)


_LIBRARY_DIRS = tuple(os.path.realpath(p) + os.sep for p in {
    sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"], sysconfig.get_paths()["purelib"],
    sysconfig.get_paths()["platlib"], os.path.dirname(os.path.dirname(os.path.abspath(__file__)))})


@functools.lru_cache(maxsize=1024)
def _is_library_file(filename: str) -> bool:
    return os.path.realpath(filename).startswith(_LIBRARY_DIRS) or filename.startswith("<frozen")


_LOADS = {"LOAD_GLOBAL": "global", "LOAD_NAME": "global", "LOAD_DEREF": "free", "LOAD_CLASSDEREF": "free",
          "LOAD_FAST": "local"}
_ATTRS = {"LOAD_ATTR", "LOAD_METHOD"}
_STORES = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"}


@functools.lru_cache(maxsize=512)
def _paths(code: types.CodeType) -> tuple:
    """The names a function's code reads and the attribute chains it follows from them, as
    ``(kind, root, attrs)``: kind "global" (a global or builtin ``root``), "free" (a variable of an enclosing
    function) or "module" (the module ``root`` imported inside the function, through a local name or
    ``from root import ...``)."""
    out = []
    imported: dict[str, tuple] = {}  # local name -> path of the module or object an import statement bound
    todo = [code]
    while todo:
        c = todo.pop()
        todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        chain = None
        pending = None  # (module name, mode) of an import whose result is about to be stored
        fromlist = None
        for ins in dis.get_instructions(c):
            op = ins.opname
            if op == "LOAD_CONST":
                fromlist = ins.argval
            if op == "IMPORT_NAME":
                # "from m import a" (a fromlist), "import m.n as v" (IMPORT_FROM follows), or "import m.n" (binds m)
                pending = (ins.argval, "from" if fromlist else "import")
                chain = None
                continue
            if op == "IMPORT_FROM" and pending is not None:
                if pending[1] == "from":
                    out.append(("module", pending[0], (ins.argval,)))
                    pending = (pending[0], "from", ins.argval)
                else:
                    pending = (pending[0], "import_as")
                continue
            if op in _STORES and pending is not None:
                if pending[1] == "from" and len(pending) == 3:
                    imported[ins.argval] = ("module", pending[0], (pending[2],))
                elif pending[1] == "import_as":
                    imported[ins.argval] = ("module", pending[0], ())
                elif pending[1] == "import":
                    imported[ins.argval] = ("module", pending[0].partition(".")[0], ())
                if pending[1] != "from":
                    pending = None
                continue
            if op in _LOADS:
                pending = None
                if _LOADS[op] == "local":
                    if ins.argval not in imported:
                        chain = None
                        continue
                    chain = imported[ins.argval]
                else:
                    chain = (_LOADS[op], ins.argval, ())
                out.append(chain)
                continue
            if op in _ATTRS and chain is not None:
                chain = (chain[0], chain[1], chain[2] + (ins.argval,))
                out.append(chain)
                continue
            if op not in ("CACHE", "PRECALL", "EXTENDED_ARG", "NOP", "RESUME", "POP_TOP", "LOAD_CONST", "SWAP"):
                chain = None
                if op != "IMPORT_FROM":
                    pending = None
    return tuple(dict.fromkeys(out))


def _resolve(path, fn, free: dict) -> list:
    """The objects a path of :func:`_paths` reaches in ``fn``'s namespace (through modules only).

    ``free`` maps ``fn``'s free variables to their cells. A free variable of code nested in ``fn`` that is
    not one of them is a local of ``fn``, unknown before the call: it resolves to nothing (never to a global
    of the same name).
    """
    kind, root, attrs = path
    if kind == "module":
        obj = sys.modules.get(root)
    elif kind == "free":
        if root not in free:
            return []
        try:
            obj = free[root].cell_contents
        except ValueError:  # an empty cell
            return []
    else:
        env = fn.__globals__
        builtins = env.get("__builtins__", {})
        builtins = vars(builtins) if isinstance(builtins, types.ModuleType) else builtins
        obj = env[root] if root in env else builtins.get(root)
    found = [obj]
    for attr in attrs:
        if not isinstance(obj, types.ModuleType):
            break
        obj = vars(obj).get(attr) or sys.modules.get(f"{obj.__name__}.{attr}")
        found.append(obj)
    return found


_MAX_DEPTH = 4
_MAX_ITEMS = 64


def _static_use(student_fn, forbidden: Forbidden) -> str | None:
    """The name of forbidden code that ``student_fn`` refers to, found without running it, or None.

    Looks at the object itself (a forbidden function, a partial or bound method of one), and for a function
    written outside the library at the names its code reads (globals, free variables, modules imported in
    it, and the attribute chains followed from modules), its default arguments and its closure; every
    object found is looked at the same way, including the items of a list, tuple, set or dict and the
    student's own helper functions, a few levels deep. It cannot see a name built at run time
    (``getattr(dpcourse, "hockey" + "_stick")``): :func:`call_student` catches those when they run.
    """
    seen: set[int] = set()

    def refers(obj, depth):
        name = forbidden.name_of(obj)
        if name is not None or depth > _MAX_DEPTH or id(obj) in seen:
            return name
        seen.add(id(obj))
        inner = []
        if isinstance(obj, functools.partial):
            inner = [obj.func, *obj.args, *obj.keywords.values()]
        elif isinstance(obj, types.MethodType):
            inner = [obj.__func__, obj.__self__]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            inner = list(itertools.islice(obj, _MAX_ITEMS))
        elif isinstance(obj, dict):
            inner = [v for kv in itertools.islice(obj.items(), _MAX_ITEMS) for v in kv]
        elif isinstance(obj, types.FunctionType):
            if _is_library_file(obj.__code__.co_filename):
                return None
            free = dict(zip(obj.__code__.co_freevars, obj.__closure__ or ()))
            inner = [x for path in _paths(obj.__code__) for x in _resolve(path, obj, free)]
            inner += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
            for cell in obj.__closure__ or ():
                with contextlib.suppress(ValueError):
                    inner.append(cell.cell_contents)
        elif callable(obj) and not isinstance(obj, (type, types.ModuleType, types.BuiltinFunctionType)):
            call = getattr(type(obj), "__call__", None)
            if isinstance(call, types.FunctionType):
                inner = [call, *list(getattr(obj, "__dict__", {}).values())[:_MAX_ITEMS]]
        for x in inner:
            name = refers(x, depth + 1)
            if name is not None:
                return name
        return None

    return refers(student_fn, 0)


class _ForbiddenCall(BaseException):
    """Raised into forbidden library code as it starts (a BaseException: ``except Exception`` passes it on)."""


_SETPROFILE = sys.setprofile


class _Guard:
    """A profile function (:func:`sys.setprofile`) that fails forbidden code as it starts; a context manager.

    CPython calls the profile function on every function call and return; on a "call" of a frame whose code
    object is forbidden it records the name and raises :class:`_ForbiddenCall` in that frame, before its
    first line. A call of ``sys.setprofile`` by the student's code (which would switch the guard off) is
    refused the same way. A cache hit of forbidden code behind ``functools.lru_cache`` would run no frame:
    the guard empties those caches as it starts. Whatever the student's code does with the exception (catch
    it, retry), the record stays, and the check fails. The guard is installed for this thread and for
    threads started meanwhile.
    """

    __slots__ = ("hit", "profile", "_previous", "_caches")

    def __init__(self, forbidden: Forbidden):
        self.hit: str | None = None
        codes = forbidden._codes.get  # noqa: SLF001 - the guard is part of Forbidden's machinery
        self._caches = [obj for obj in forbidden._keep if hasattr(obj, "cache_clear")]  # noqa: SLF001
        guard = self

        def profile(frame, event, arg):
            if event == "call":
                name = codes(id(frame.f_code))
            elif event == "c_call" and arg is _SETPROFILE and frame.f_code is not _EXIT_CODE:
                name = "sys.setprofile"
            else:
                return
            if name is not None:
                if guard.hit is None:
                    guard.hit = name
                raise _ForbiddenCall(name)

        self.profile = profile

    def __enter__(self):
        for cached in self._caches:
            cached.cache_clear()
        self._previous = (sys.getprofile(), threading.getprofile())
        threading.setprofile(self.profile)
        _SETPROFILE(self.profile)
        return self

    def __exit__(self, *exc):
        threading.setprofile(self._previous[1])
        _SETPROFILE(self._previous[0])  # the one call of sys.setprofile the guard lets through (_EXIT_CODE)
        return False


_EXIT_CODE = _Guard.__exit__.__code__


def _forbidden_failure(name: str, how: str) -> CheckResult:
    if name == "sys.setprofile":
        return CheckResult(False, "your function calls sys.setprofile, which switches off how this checker sees "
                                  "which library code runs; remove that call")
    return CheckResult(False, f"your function {how} {name}, the code this exercise asks you to write yourself")


def call_many(student_fn, calls, *, record: int = 0):
    """``([student_fn(*args) for args in calls], recorded)``, the calls made in turn.

    ``recorded[i]`` (for ``i < record``) lists the states of the numpy Generators the calls were given (each
    distinct object once, in order of first appearance) after call ``i``. The homework grader's stand-in for
    a student's function, which runs in another process, does the whole batch in one round trip (its own
    ``call_many``); a statistical check that calls a function thousands of times goes through here. The first
    exception a call raises propagates, as in a loop.
    """
    batch = getattr(student_fn, "call_many", None)
    if callable(batch) and not isinstance(student_fn, types.FunctionType):
        return batch(calls, record=record)
    gens, seen = [], set()
    for args in calls[:1] if record else []:
        for a in args:
            if isinstance(a, np.random.Generator) and id(a) not in seen:
                seen.add(id(a))
                gens.append(a)
    results, recorded = [], []
    for i, args in enumerate(calls):
        results.append(student_fn(*args))
        if i < record:
            recorded.append([g.bit_generator.state for g in gens])
    return results, recorded


#: Whether a failure names the call's inputs (the book's self-checks do; the homework grader sets it to False, so
#: that feedback says what was tested in words, never the hidden inputs).
SHOW_INPUTS = True


def call_student(student_fn, args, context: str, *, shape=None, forbidden=()):
    """Run a student's function on ``args``; return ``(result, None)`` or ``(None, CheckResult)`` on failure.

    With ``shape=None`` the result must be one real number and comes back as a float; with a tuple
    ``shape`` it must be an array of numbers of that shape and comes back as a float64 array. The
    failure says whether the function was not passed, raised (the student's code may raise anything),
    or returned the wrong kind of value; ``context`` (e.g. "on p=[...], epsilon=0.5") names the call.
    NumPy warnings are silenced: the checker reports a NaN itself, with a hint.

    ``forbidden`` (a :class:`Forbidden`, or the functions, classes or ``(module, name)`` pairs to build one)
    is the library code the exercise asks the student to write, not call. A function that refers to it
    (:func:`_static_use`: by any name, a default argument, a container, a partial...) is refused before it
    runs; and while it runs, a profile function (:class:`_Guard`) watches every Python frame that starts, so
    that forbidden code reached in any other way (a name built at run time, another library function that
    calls it, a private helper) fails the call, even if the student's code catches the exception. The result
    is turned into a number or an array while the guard still watches (a lazy object's ``__float__`` or
    ``__array__`` runs inside it). Out of its sight: code run in another process, and values computed before
    the call (a number computed in an earlier cell is data, like a typed number). The guard slows the
    student's own Python code while it runs (the profile function is called on every call and return).
    """
    if not callable(student_fn):
        return None, CheckResult(False, "pass the function itself (its name, without parentheses)")
    if not SHOW_INPUTS:
        context = "on one of the grader's cases"
    forbidden = _as_forbidden(forbidden)
    guard = None
    if forbidden:
        used = _static_use(student_fn, forbidden)
        if used is not None:
            return None, _forbidden_failure(used, "uses")
        guard = _Guard(forbidden)
    try:
        with np.errstate(all="ignore"), (guard if guard is not None else contextlib.nullcontext()):
            out = student_fn(*args)
            result = _convert(out, shape, context)
    except _ForbiddenCall as exc:
        result = None, CheckResult(False, f"your function raised {type(exc).__name__} ({context})")
    except Exception as exc:  # noqa: BLE001 - any exception in the student's code is feedback
        result = None, CheckResult(False, f"your function raised {type(exc).__name__}: {exc} ({context})")
    if guard is not None and guard.hit is not None:  # even if the student's code caught the exception
        return None, _forbidden_failure(guard.hit, "runs")
    return result


def _convert(out, shape, context):
    """``(value, None)`` or ``(None, failure)``: the student's result as a float or a float64 array of ``shape``."""
    if shape is None:
        if isinstance(out, (bool, np.bool_)):
            return None, CheckResult(False, f"your function should return one number, it returned a bool ({context})")
        try:
            return float(out), None
        except (TypeError, ValueError):
            return None, CheckResult(False, f"your function should return one number, it returned "
                                            f"{type(out).__name__} ({context})")
    try:
        arr = np.asarray(out, dtype=float)
    except (TypeError, ValueError):
        return None, CheckResult(False, f"return an array of numbers, got {type(out).__name__} ({context})")
    if arr.shape != tuple(shape):
        if not SHOW_INPUTS:   # the grader's sizes are hidden: say what is wrong without them
            return None, CheckResult(False, "return an array with one number per category/query/outcome of the "
                                            f"input (your array has the wrong shape) ({context})")
        return None, CheckResult(False, f"return an array of shape {tuple(shape)}, got shape {arr.shape} ({context})")
    return arr, None


def _close(a: float, b: float, rel_tol: float) -> bool:
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=0.0 if b != 0 else rel_tol)


def parse_number(answer, *, what: str, low=None, high=None, low_open=False, high_open=False, integer=False):
    """The first rule of every numeric checker: ``(value, None)`` for a valid answer, else ``(None, refusal)``.

    Refused as "not a valid answer", before any feedback on the value: strings (even "0.3"), bytes,
    bools, non-numbers, NaN, +-inf, a non-whole number where ``integer`` is set, and a value outside the
    range ``low``..``high`` (open at an end if ``low_open``/``high_open``).
    """
    if isinstance(answer, (bool, np.bool_)) or isinstance(answer, (str, bytes)) or \
            not isinstance(answer, numbers.Real):
        kind = f"the string {answer!r}" if isinstance(answer, (str, bytes)) else type(answer).__name__
        return None, CheckResult(False, f"not a valid answer: give {what} as a number, not {kind}")
    a = float(answer)
    if not math.isfinite(a):
        return None, CheckResult(False, f"not a valid answer: {what} must be a finite number, got {a}")
    if integer and a != math.floor(a):
        return None, CheckResult(False, f"not a valid answer: {what} is a whole number, got {a}")
    if (low is not None and (a < low or (low_open and a == low))) or \
            (high is not None and (a > high or (high_open and a == high))):
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "+inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        return None, CheckResult(False, f"not a valid answer: {what} must lie in {lo}, {hi}, got {a:g}")
    return a, None


def match_slip(a: float, truth: float, slips, rel_tol: float) -> CheckResult | None:
    """The hint of the recognised mistakes ``a`` matches, or None.

    ``slips`` holds ``(value, hint)`` or ``(value, hint, tolerance)``; a slip matches within its own
    tolerance (default ``rel_tol``) if ``a`` is nearer to it than to the truth, and not within a tenth of
    ``rel_tol`` of the truth. When several slips with different hints match (two mistakes that give the
    same number), the message names each of them: naming one only would blame a mistake the student may
    not have made.
    """
    hints = []
    for slip in slips:
        value, hint = slip[0], slip[1]
        tol = slip[2] if len(slip) > 2 else rel_tol
        if _close(a, value, tol) and abs(a - value) < abs(a - truth) and not _close(a, truth, rel_tol / 10) \
                and hint not in hints:
            hints.append(hint)
    if not hints:
        return None
    if len(hints) == 1:
        return CheckResult(False, hints[0])
    return CheckResult(False, "that value is what more than one slip gives: " +
                       "; ".join(f"({i}) {hint}" for i, hint in enumerate(hints, 1)))


def _percent(rel_tol: float) -> str:
    """A relative precision as the messages state it: 1e-3 -> "0.1%", 5e-4 -> "0.05%"."""
    return f"{rel_tol * 100:.3g}%"


def not_yet(what: str, precision: str) -> CheckResult:
    """The message for a valid answer that is neither right nor a recognised slip: no direction given."""
    return CheckResult(False, f"{what} is not yet right: it is not {precision}. Re-derive it step by step; "
                              "the hints in the exercise point at the usual slips.")


def check_number(answer, truth: float, *, what: str, low=None, high=None, low_open=False, high_open=False,
                 rel_tol: float = DEFAULT_REL_TOL, slips=(), integer=False, correct: str = "") -> CheckResult:
    """Check a numeric answer by the rules of this module.

    Parameters
    ----------
    answer : object
        What the student typed.
    truth : float
        The exact answer.
    what : str
        What the number is ("epsilon", "the sample size n"), for the messages.
    low, high, low_open, high_open : optional
        The range of valid answers (an answer outside it is invalid, not "wrong").
    rel_tol : float
        Relative precision accepted (stated in the messages).
    slips : sequence of (value, hint) or (value, hint, tolerance)
        Recognised mistakes: an answer that is not right, within the slip's tolerance (default ``rel_tol``)
        of ``value`` and nearer to it than to the truth gets ``hint`` (:func:`match_slip`).
    integer : bool
        The answer must be a whole number (a float such as 5299.0 is accepted).
    correct : str
        Extra words for a correct answer.
    """
    a, refusal = parse_number(answer, what=what, low=low, high=high, low_open=low_open, high_open=high_open,
                              integer=integer)
    if refusal is not None:
        return refusal
    precision = f"within {_percent(rel_tol)} of the exact value" if not integer else "the exact whole number"
    # The stated precision comes first: an answer within it is right, even where a slip's value is near.
    if (integer and a == truth) or (not integer and _close(a, truth, rel_tol)):
        return CheckResult(True, f"{what} is right ({precision}). {correct}".strip())
    slip = match_slip(a, truth, slips, rel_tol)
    if slip is not None:
        return slip
    return not_yet(what, precision)
