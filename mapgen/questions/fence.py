"""The fence a template pack's Python code runs in: importing its ``functions.py`` and every call of its functions.

Inside the fence (:func:`fenced`) the pack's prints go to stderr, each line prefixed ``pack 'NAME':`` (so a
``mapgen questions`` JSONL on stdout stays clean); ``sys.exit`` and ``os._exit`` raise instead of ending the
process; any exception, an exit or a breach of the budget becomes one :class:`PackCodeError` line naming the pack
and what ran (its import, or the function), to which the engine adds the template. The budget counts the lines
of the pack's own file that run (:data:`MAX_LINES`) and the wall time (checked at those lines,
:data:`CALL_SECONDS` per call, :data:`IMPORT_SECONDS` per import), so a looping function fails in one line within
seconds instead of hanging a build. :func:`check_result` holds a function's result to its declared type.
After an import, :func:`altered` finds (and puts back) what the pack changed among the :class:`Slot` s it was to
leave alone: mapgen's functions, classes and constants (:func:`module_slots`) and the registry's functions.

**The fence is no sandbox.** Pack code is Python and runs with the user's permissions: it can write files, open
sockets, end the process through a signal or ``ctypes``, catch the budget with a bare ``except:`` and loop
again (Python stops tracing once a trace function raises), or block in one long call into C (``time.sleep``,
a huge ``list(range(...))``), which no line counter sees. Name only packs whose code you trust.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn, TextIO

#: Lines of a pack's own file one import or one call may run.
MAX_LINES = 1_000_000
#: Wall time of one call of a pack function (seconds, checked at each line of the pack's file).
CALL_SECONDS = 5.0
#: Wall time of importing a pack's ``functions.py`` (seconds, checked at each line of the file).
IMPORT_SECONDS = 30.0
#: How often (in lines) the clock is read.
_CLOCK_EVERY = 256


class PackCodeError(ValueError):
    """A pack's code that raised, tried to exit, broke its budget or returned a value of the wrong type (one line
    naming the pack, the function and, once the engine adds it, the template)."""

    def __init__(self, message: str, template: str = "") -> None:
        super().__init__(f"template {template}: {message}" if template else message)
        self.message, self.template = message, template

    def in_template(self, template: str) -> PackCodeError:
        """The same error naming the template whose program called the function (kept when it names one)."""
        return self if self.template else PackCodeError(self.message, template)


class _Exit(BaseException):
    """Raised by ``os._exit`` inside the fence (a BaseException, so an ``except Exception`` in pack code lets
    it through)."""

    def __init__(self, status: object) -> None:
        super().__init__(status)
        self.status = status


class _OverBudget(BaseException):
    """The pack's code broke its budget (a BaseException, so an ``except Exception`` in pack code lets it through;
    Python stops tracing once a trace function raises, so a bare ``except:`` around a loop can still hang)."""


class _Prefixed:
    """A text stream writing each line to stderr behind ``pack 'NAME': ``."""

    def __init__(self, pack: str, stream: TextIO) -> None:
        self.prefix, self.stream, self.at_start = f"pack {pack!r}: ", stream, True

    def write(self, text: str) -> int:
        for piece in str(text).splitlines(keepends=True):
            if self.at_start:
                self.stream.write(self.prefix)
            self.stream.write(piece)
            self.at_start = piece.endswith("\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


class _Budget:
    """A trace function counting the lines of one file that run and the time they take."""

    def __init__(self, filename: str, seconds: float) -> None:
        self.filename, self.seconds = filename, seconds
        self.lines, self.start, self.breach = 0, time.monotonic(), ""  # breach: why it stopped

    def on_call(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        """Trace the frames of the pack's file line by line (other code is not counted)."""
        return self.on_line if frame.f_code.co_filename == self.filename else None

    def on_line(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            self.lines += 1
            if self.lines > MAX_LINES:
                self.breach = f"ran more than {MAX_LINES:,} lines (line {frame.f_lineno} of {Path(self.filename).name})"
            elif self.lines % _CLOCK_EVERY == 0 and time.monotonic() - self.start > self.seconds:
                self.breach = f"ran longer than {self.seconds:g} s (line {frame.f_lineno} of {Path(self.filename).name})"
            if self.breach:
                raise _OverBudget(self.breach)
        return self.on_line


def _refuse_exit(status: int) -> NoReturn:
    raise _Exit(status)


_REAL_EXIT = os._exit
try:
    import posix as _posix  # os._exit's own module, which pack code could call directly
except ImportError:  # Windows
    _posix = None  # type: ignore[assignment]
_LOCK = threading.Lock()
_DEPTH = [0]  # fences open in this process (threads and nesting share one os._exit and one sys.stdout)
_STDOUT: list[Any] = [None]


def _enter(pack: str) -> None:
    """The first open fence refuses ``os._exit`` and sends stdout to stderr behind the pack's name."""
    with _LOCK:
        if _DEPTH[0] == 0:
            os._exit = _refuse_exit
            if _posix is not None:
                _posix._exit = _refuse_exit
            _STDOUT[0], sys.stdout = sys.stdout, _Prefixed(pack, sys.stderr)
        _DEPTH[0] += 1


def _leave() -> None:
    """The last fence to close puts ``os._exit`` and stdout back."""
    with _LOCK:
        _DEPTH[0] -= 1
        if _DEPTH[0] == 0:
            os._exit, sys.stdout = _REAL_EXIT, _STDOUT[0]
            if _posix is not None:
                _posix._exit = _REAL_EXIT


@contextlib.contextmanager
def fenced(pack: str, filename: str, what: str, seconds: float = CALL_SECONDS) -> Iterator[None]:
    """Run the block as code of the pack ``pack`` whose file is ``filename`` (``what``: ``importing
    functions.py`` or ``function 'NAME'``), as the module docstring says; a failure raises PackCodeError."""
    fix = "fix the function" if what.startswith("function") else f"fix {Path(filename).name}"
    budget, old_trace = _Budget(filename, seconds), sys.gettrace()
    fail = ""
    _enter(pack)
    sys.settrace(budget.on_call)
    alarm = _alarm(seconds, filename)
    try:
        yield
    except _OverBudget as exc:
        fail = f"{exc}, the budget of pack code; {fix} so it finishes quickly (remove the loop or bound it)"
    except (SystemExit, _Exit) as exc:
        status = exc.code if isinstance(exc, SystemExit) else exc.status
        call = "sys.exit" if isinstance(exc, SystemExit) else "os._exit"
        fail = f"called {call}({status!r}); pack code may not end the process: {fix} (raise an exception instead)"
    except PackCodeError:
        raise  # a pack function this one called failed: that error names it
    except Exception as exc:  # an author's code: any error is one line naming where it came from
        fail = f"raised {type(exc).__name__}: {_one_line(exc)}{_where(exc, filename)}; {fix}"
    finally:
        alarm()
        sys.settrace(old_trace)
        _leave()
    if fail:
        raise PackCodeError(f"pack {pack!r} {what} {fail}")


def _alarm(seconds: float, filename: str) -> Callable[[], None]:
    """A wall-clock alarm for the block (the main thread only, and only when no outer alarm runs): it stops code
    that waits inside one call into C (``time.sleep``, a blocking read), which the line budget never sees.
    Returns the function that disarms it."""
    import signal

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer") \
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        return lambda: None

    def ring(signum: int, frame: FrameType | None) -> None:
        raise _OverBudget(f"ran longer than {seconds:g} s (waiting in a call of {Path(filename).name})")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds + 0.5)  # the line budget speaks first when lines run

    def disarm() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return disarm


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _where(exc: BaseException, filename: str) -> str:
    """`` (functions.py line N)``: the last line of the pack's file in the traceback ("" when none is)."""
    tb, line = exc.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" ({Path(filename).name} line {line})" if line else ""


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _is_strs(v: Any) -> bool:
    return isinstance(v, (list, tuple, set, frozenset)) and all(isinstance(x, str) for x in v)


#: The result types a pack function's value is checked against: (check, what the type is in words).
RESULT_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "Int": (_is_int, "a whole number"),
    "N": (_is_int, "a whole number"),
    "Number": (_is_number, "a number"),
    "Bool": (lambda v: isinstance(v, bool) or type(v).__name__ == "bool_", "True or False"),
    "Str": (lambda v: isinstance(v, str), "a string"),
    "Region": (lambda v: isinstance(v, str), "a region code (a string)"),
    "Regions": (_is_strs, "a list of region codes"),
}


def check_result(pack: str, function: str, returns: str, value: Any) -> None:
    """Raise PackCodeError when ``value`` is not of the declared result type ``returns`` (types without a check
    in :data:`RESULT_CHECKS` pass)."""
    check = RESULT_CHECKS.get(returns)
    if check is not None and not check[0](value):
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise PackCodeError(f"pack {pack!r} function {function!r} returned {shown} ({type(value).__name__}), but "
                            f"it is declared to return {returns} ({check[1]}); fix the function or its @register "
                            "result type")


# ------------------------------------------------------------------------------ what pack code must leave alone

_MISSING = object()
_SCALARS = (int, float, str, bytes, bool, tuple, frozenset)


@dataclass(frozen=True)
class Slot:
    """One thing pack code must not change: the item ``holder[key]`` (``item``), else the attribute ``key`` of
    ``holder`` (a module's name, a class's method, a function's code, a closure cell's contents); ``label``
    names it in a refusal."""

    label: str
    holder: Any
    key: str
    value: Any
    item: bool = False

    def current(self) -> Any:
        """What the slot holds now."""
        if self.item:
            return self.holder.get(self.key, _MISSING)
        if isinstance(self.holder, type):  # the class's own entry (getattr would bind a new method each time)
            return self.holder.__dict__.get(self.key, _MISSING)
        try:
            return getattr(self.holder, self.key, _MISSING)
        except ValueError:  # an empty closure cell
            return _MISSING

    def changed(self) -> bool:
        """Whether the slot holds another object (an equal constant counts as the same)."""
        now = self.current()
        return not (now is self.value or (isinstance(now, _SCALARS) and type(now) is type(self.value)
                                          and now == self.value))

    def restore(self) -> None:
        """Put the original back."""
        if self.item:
            self.holder[self.key] = self.value
        else:
            setattr(self.holder, self.key, self.value)


def function_slots(fn: Any, label: str) -> list[Slot]:
    """The code, defaults and closure cells of ``fn`` and of the function it wraps (``__wrapped__``)."""
    out = []
    for obj in dict.fromkeys(o for o in (fn, getattr(fn, "__wrapped__", None)) if o is not None):
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):
            if hasattr(obj, attr):
                out.append(Slot(label, obj, attr, getattr(obj, attr)))
        for cell in getattr(obj, "__closure__", None) or ():
            with contextlib.suppress(ValueError):
                out.append(Slot(label, cell, "cell_contents", cell.cell_contents))
    return out


def module_slots(prefix: str = "mapgen") -> list[Slot]:
    """The functions, classes (their methods) and constants of every loaded module of ``prefix``."""
    out, classes = [], set()
    for name, module in list(sys.modules.items()):
        if module is None or not (name == prefix or name.startswith(prefix + ".")):
            continue
        for attr, value in list(vars(module).items()):
            if attr.startswith("__"):
                continue
            if isinstance(value, type) and value.__module__ == name and value not in classes:
                classes.add(value)
                out += [Slot(f"the built-in {name}.{attr}.{key}", value, key, v) for key, v in list(vars(value).items())
                        if callable(v) or isinstance(v, (staticmethod, classmethod, property))]
            if callable(value) or isinstance(value, _SCALARS):
                out.append(Slot(f"the built-in {name}.{attr}", module, attr, value))
            if callable(value) and hasattr(value, "__code__"):
                out += function_slots(value, f"the built-in {name}.{attr}")
    return out


def altered(slots: list[Slot]) -> list[str]:
    """The labels of the slots pack code changed (each put back), once each in order (a slot listed twice is
    named by its first label)."""
    changed: dict[tuple[int, str], Slot] = {}
    for slot in slots:
        if (id(slot.holder), slot.key) not in changed and slot.changed():
            changed[(id(slot.holder), slot.key)] = slot
    for slot in changed.values():
        slot.restore()
    return list(dict.fromkeys(s.label for s in changed.values()))
