"""The CLI's error boundary: every expected failure becomes one line (what, why, how to fix) and an exit code.

Exit codes: 2 for bad input or usage (an unknown name, an invalid value, a missing input file, a build the
folder refuses), 1 for a failing environment (a folder that cannot be written, a missing optional dependency,
a resource limit) and for unexpected errors, which also say how to see the traceback.
"""

from __future__ import annotations

import errno
import sys

from mapgen.errors import BuildError
from mapgen.geo.names import UnknownNameError

INPUT, ENVIRONMENT = 2, 1

#: Top-level module of an optional dependency → the extra that installs it.
OPTIONAL_EXTRAS: dict[str, str] = {
    "plotly": "plotly", "kaleido": "plotly", "pycocoevalcap": "eval", "datasets": "export", "mlcroissant": "export",
    "pyarrow": "export", "dask": "dask", "distributed": "dask",
}

_WRITE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}
_PATH_ERRNOS = {errno.ENOTDIR, errno.EISDIR, errno.EEXIST}


def missing_dependency(exc: ImportError) -> str | None:
    """The one-line message for an optional dependency that is not installed (``None`` for other imports)."""
    top = (exc.name or "").split(".")[0]
    extra = OPTIONAL_EXTRAS.get(top)
    if extra is None:
        return None
    return f"{top} is not installed; it comes with mapgen's [{extra}] extra: pip install 'mapgen[{extra}]'"


def _os_message(exc: OSError) -> str:
    from mapgen.files import DiskFullError

    if isinstance(exc, DiskFullError):
        return str(exc)
    where = f" {exc.filename}" if exc.filename else ""
    reason = exc.strerror or str(exc)
    if exc.errno in _PATH_ERRNOS:
        return f"cannot use the path{where}: {reason}; give a path whose parent folders are folders, not files."
    return f"cannot write{where}: {reason}; choose a folder you can write to (-o/--output)."


def _template_error(exc: BaseException) -> bool:
    jinja = sys.modules.get("jinja2.exceptions")
    return jinja is not None and isinstance(exc, jinja.TemplateError)


def _yaml_error(exc: BaseException) -> str | None:
    """One line for a PyYAML error no loader explained (``FILE:LINE:COL: what`` when the file is known)."""
    yaml = sys.modules.get("yaml")
    if yaml is None or not isinstance(exc, yaml.YAMLError):
        return None
    from mapgen.yamlio import yaml_file_problem, yaml_problem

    mark = getattr(exc, "problem_mark", None)
    name = getattr(mark, "name", None)
    if name and not str(name).startswith("<"):
        return yaml_file_problem(name, exc)
    return f"not valid YAML: {yaml_problem(exc)}"


def _symlink_loop(exc: BaseException) -> str | None:
    """One line for a path running through a symbolic link that points back at itself (``pathlib`` raises
    ``RuntimeError('Symlink loop from …')``; the OS, ``ELOOP``)."""
    if isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop"):
        where = str(exc).removeprefix("Symlink loop from ").strip()
    elif isinstance(exc, OSError) and exc.errno == errno.ELOOP:
        where = repr(exc.filename)
    else:
        return None
    return (f"the path {where} runs through a symbolic link that points back at itself; remove or repoint the "
            "link (`ls -l` shows it), or give another path.")


def explain(exc: BaseException) -> tuple[str, int] | None:
    """``(message, exit code)`` for an expected failure; ``None`` for an unexpected one."""
    from mapgen.files import FolderError

    if isinstance(exc, FolderError):
        return str(exc), ENVIRONMENT
    if isinstance(exc, (UnknownNameError, BuildError, FileNotFoundError)):
        return str(exc), INPUT
    if isinstance(exc, ImportError):
        message = missing_dependency(exc)
        return (message, ENVIRONMENT) if message else None
    if isinstance(exc, OSError) and exc.errno in _WRITE_ERRNOS | _PATH_ERRNOS:
        return _os_message(exc), ENVIRONMENT
    if (loop := _symlink_loop(exc)) is not None:
        return loop, INPUT
    if isinstance(exc, (MemoryError, RecursionError, OverflowError)):
        return (f"resource limit reached ({type(exc).__name__}: {exc}); a template or config asks for more than "
                "mapgen can compute — make it smaller."), ENVIRONMENT
    if (yaml_message := _yaml_error(exc)) is not None:
        return yaml_message, INPUT
    if _template_error(exc):
        return f"template text rejected by the sandbox: {exc}; run `mapgen templates lint FILE`.", INPUT
    if isinstance(exc, ValueError):
        return str(exc), INPUT
    return None


#: The exit status of a command whose reader closed the pipe: 128 + SIGPIPE, what a shell reports for ``yes``
#: in ``yes | head -1`` (so ``set -o pipefail`` scripts see it the same way).
BROKEN_PIPE = 141


def closed_pipe(exc: BaseException) -> bool:
    """True for a write into a pipe whose reader has gone (``mapgen templates list | head -1``)."""
    return isinstance(exc, BrokenPipeError) or (isinstance(exc, OSError) and exc.errno == errno.EPIPE)


def exit_quietly_on_closed_pipe() -> None:
    """Leave without a message (exit 141, like a Unix tool killed by SIGPIPE): stdout is pointed at
    ``/dev/null`` first so Python's own flush at exit does not report the broken pipe either."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(BROKEN_PIPE)


def one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     line: str | None = None) -> str:
    """A warning as the CLI prints it: ``Warning: <message>`` (no source path or code line; ``--debug`` keeps them)."""
    return f"Warning: {message}\n"


def unexpected(exc: BaseException) -> str:
    """The one line for an error mapgen did not expect."""
    return f"unexpected {type(exc).__name__}: {exc} (run `mapgen --debug …` for the traceback)"
