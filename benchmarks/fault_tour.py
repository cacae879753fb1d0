"""Fault tour: run the `mapgen` CLI on many bad or odd inputs, as a careless and as a hostile user, and classify
every outcome (issue 28, "Done when": a tour of at least 150 fresh cases with no vague, silent or hanging case).

Each case declares its command, the inputs it writes into a fresh temp folder (or real artefacts the code made:
a tiny `mapgen build`, a render, a spec, an eval report), and the fragments its error line must contain to
"name the problem" and to "name the fix". Verdicts:

- **clear**: exit 1 or 2, exactly one error line, no traceback, names input and fix, nothing left behind;
- **handled**: an odd but valid input that succeeds with a result the case checks;
- **vague**: the problem or the fix is not named, several error lines, or an odd exit status;
- **silent**: exit 0 on a bad input, or a wrong/empty result;
- **hang**: no exit within the timeout;
- **left behind**: a clear refusal that leaves output (or changes an input or the benchmark);
- **traceback**: a Python traceback.

Run on demand (minutes; not part of the test suite)::

    python benchmarks/fault_tour.py [--family tables] [--case T01] [--jobs 2] [--timeout 60]

It prints a markdown table (case id, family, command, verdict, message) and the counts per verdict.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Check = Callable[[Path, str], "str | None"]
Setup = Callable[[Path, "Artefacts"], None]
VERDICTS = ("clear", "handled", "vague", "silent", "hang", "left behind", "traceback")
TINY_CONFIG = """name: tour-tiny
seed: 3
countries:
  - {name: usa, maps: 1}
counterfactual: {country: usa, maps: 0}
questions: {per_image: 4}
split: {ratios: {train: 0.5, test: 0.5}}
"""


@dataclass
class Case:
    """One tour case: ``args`` hold ``{d}`` (the case folder) and artefact placeholders (see ``Artefacts``)."""

    id: str
    family: str
    args: list[str]
    names: tuple[str, ...] = ()
    fixes: tuple[str, ...] = ()
    files: dict[str, str | bytes] = field(default_factory=dict)
    setup: Setup | None = None
    expect: str = "error"  # error | ok | either (a clear refusal or a checked success)
    check: Check | None = None
    signal: tuple[int, float] | None = None  # (signal, seconds after start)
    gone: tuple[str, ...] = ()  # signal cases: paths (relative to the case folder) that must not exist after
    report: bool = False  # a linter: its findings are lines on stdout ("FILE: problem"), no "Error:" prefix


@dataclass
class Artefacts:
    """Real artefacts the code made, shared read-only by the cases (cases that alter one copy it first)."""

    root: Path
    bench: Path
    map: Path
    spec: Path
    eval: Path
    grid: Path
    grid_csv: Path

    def fill(self, arg: str, d: Path) -> str:
        return arg.format(d=d, bench=self.bench, map=self.map, spec=self.spec, eval=self.eval, grid=self.grid,
                          gridcsv=self.grid_csv, root=self.root)


@dataclass
class Row:
    case: Case
    verdict: str
    message: str
    seconds: float


# ------------------------------------------------------------------------------------------------ artefacts


def mapgen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mapgen", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)


def grid_geojson(path: Path, n: int = 3) -> Path:
    """An n×n grid of 1° squares named ``Cell <row letter><column>`` (what tests/helpers.write_grid draws)."""
    features = []
    for r in range(n):
        for c in range(n):
            ring = [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1], [c, r]]
            features.append({"type": "Feature", "properties": {"name": f"Cell {chr(65 + r)}{c + 1}"},
                             "geometry": {"type": "Polygon", "coordinates": [ring]}})
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}), encoding="utf-8")
    return path


def make_artefacts(root: Path) -> Artefacts:
    """Build the tiny benchmark, a render, a spec and an eval report the cases read."""
    (root / "tiny.yaml").write_text(TINY_CONFIG, encoding="utf-8")
    steps = [["build", str(root / "tiny.yaml"), "-o", str(root / "bench"), "--quiet"],
             ["render", "usa", "--stat", "population_2020", "-o", str(root / "map" / "map.png")],
             ["spec", "usa", "--stat", "population_2020", "-o", str(root / "spec.json")],
             ["eval", str(root / "bench"), "--baseline", "random", "-o", str(root / "eval"), "--no-plots"]]
    for step in steps:
        done = mapgen(*step)
        if done.returncode != 0:
            raise SystemExit(f"artefact step failed: mapgen {' '.join(step)}\n{done.stderr}")
    shutil.copytree(root / "bench", root / "bench.pristine")
    grid = grid_geojson(root / "grid.geojson")
    rows = ["region,value"] + [f"Cell {chr(65 + r)}{c + 1},{r * 3 + c + 1}" for r in range(3) for c in range(3)]
    (root / "grid.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return Artefacts(root, root / "bench", root / "map" / "map.json", root / "spec.json", root / "eval", grid,
                     root / "grid.csv")


def question_ids(art: Artefacts) -> list[str]:
    lines = (art.bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question_id"] for line in lines if line.strip()]


def copy_bench(d: Path, art: Artefacts) -> Path:
    shutil.copytree(art.bench, d / "bench")
    return d / "bench"


# ------------------------------------------------------------------------------------------------ running


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path → digest of every file and folder under ``folder`` (folders as ``dir``)."""
    out: dict[str, str] = {}
    if not folder.exists():
        return out
    for path in sorted(folder.rglob("*")):
        rel = str(path.relative_to(folder))
        if path.is_symlink() or not path.is_file():
            out[rel] = "dir" if path.is_dir() else "other"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def error_lines(stderr: str) -> list[str]:
    """Lines of an error report: not blank, not a warning, not click's usage preamble."""
    skip = ("Warning:", "Usage:", "Try '")
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith(skip)]


def _default_sigint() -> None:
    """In the child: Ctrl-C as a terminal delivers it (a tour started in the background inherits SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _launch(argv: list[str], case: Case, timeout: float) -> tuple[int | None, str, str]:
    env = dict(os.environ, COLUMNS="200", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_default_sigint)
    if case.signal is not None:
        sig, after = case.signal
        time.sleep(after)
        if proc.poll() is None:
            proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err


def names_file(line: str) -> bool:
    """A linter's finding line: ``FILE: problem``."""
    return line.split(":", 1)[0].endswith((".yaml", ".yml", ".py"))


def says(line: str, fragment: str) -> bool:
    """Whether ``line`` holds ``fragment`` starting at a word ("valid" is in "a valid key", not in "Invalid")."""
    return re.search(r"(?<![a-z0-9])" + re.escape(fragment.lower()), line.lower()) is not None


def _refusal_verdict(case: Case, code: int, err: str, changed: bool) -> tuple[str, str]:
    lines = error_lines(err)
    prefix = "" if case.report else "error:"
    message = " / ".join(lines) if lines else "(no message)"
    if code == 0:
        return "silent", message
    low = lines[0].lower() if len(lines) == 1 or case.report else ""
    named = bool(low) and all(f.lower() in low for f in case.names)
    fixed = bool(low) and (not case.fixes or any(says(low, f) for f in case.fixes))
    if code not in (1, 2):
        return "vague", f"(exit {code}) {message}"
    several = len(lines) > 1 and not (case.report and all(names_file(line) for line in lines))
    if several or not named or not fixed or not low.startswith(prefix):
        return "vague", message
    return ("left behind" if changed else "clear"), message


def _complete(path: Path) -> bool:
    """A whole output: a PNG that decodes, a JSON that parses, a non-empty folder."""
    try:
        if path.is_dir():
            return any(path.iterdir())
        if path.suffix == ".png":
            from PIL import Image

            with Image.open(path) as image:
                image.load()
        elif path.suffix == ".json":
            json.loads(path.read_text(encoding="utf-8"))
        return path.stat().st_size > 0
    except (OSError, ValueError):
        return False


def _signal_verdict(case: Case, code: int, err: str, d: Path) -> tuple[str, str]:
    """A run that was sent a signal: it must stop without a traceback and leave none of ``case.gone``."""
    if code == 0:
        return "handled", "(finished before the signal)"
    lines = error_lines(err)
    message = (" / ".join(lines) if lines else "(no message)") + f" (exit {code})"
    left = [g for g in case.gone if (d / g).exists()]
    if left and len(left) == len(case.gone) and all(_complete(d / g) for g in left):
        return "handled", f"{message} (the signal came after every output was complete)"
    if left:
        return "left behind", f"{message} [left: {', '.join(left)}]"
    if len(lines) > 1 or (lines and not all(f.lower() in lines[0].lower() for f in case.names)):
        return "vague", message
    return "clear", message


def classify(case: Case, code: int | None, out: str, err: str, d: Path, changed: bool) -> tuple[str, str]:
    """The verdict of one run and the message to print."""
    if code is None:
        return "hang", "(timeout)"
    if "Traceback (most recent call last)" in out + err:
        return "traceback", [line for line in err.splitlines() if line.strip()][-1][:200]
    if case.signal is not None:
        return _signal_verdict(case, code, err, d)
    if code == 0 and case.expect in ("ok", "either"):
        problem = case.check(d, out + err) if case.check else None
        if problem is not None:
            return "silent", problem
        return ("silent", "wrote into the benchmark or an input") if changed else ("handled", (out.strip().splitlines()
                                                                                     or ["(ok)"])[-1][:200])
    return _refusal_verdict(case, code, out + err if case.report else err, changed)


def restore(art: Artefacts) -> None:
    """Put the shared benchmark back after a case wrote into it (so later cases see the real artefact)."""
    shutil.rmtree(art.bench)
    shutil.copytree(art.root / "bench.pristine", art.bench)


def run_case(case: Case, art: Artefacts, timeout: float) -> Row:
    with tempfile.TemporaryDirectory(prefix=f"tour-{case.id}-") as tmp:
        d = Path(tmp)
        for name, content in case.files.items():
            path = d / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        if case.setup is not None:
            case.setup(d, art)
        argv = [sys.executable, "-m", "mapgen", *(art.fill(a, d) for a in case.args)]
        reads_bench = any("{bench}" in a for a in case.args)
        before, bench_before = snapshot(d), snapshot(art.bench) if reads_bench else {}
        start = time.perf_counter()
        code, out, err = _launch(argv, case, timeout)
        seconds = time.perf_counter() - start
        changed = reads_bench and snapshot(art.bench) != bench_before
        if changed:
            restore(art)
        if case.expect == "error" or code != 0:
            changed = changed or snapshot(d) != before
        verdict, message = classify(case, code, out, err, d, changed)
        for path in d.rglob("*"):  # read-only folders a case made must not stop the clean-up
            if path.is_dir():
                path.chmod(0o755)
        return Row(case, verdict, message, seconds)


def command_text(case: Case) -> str:
    text = " ".join(a if len(a) < 40 else "…" + a[-30:] for a in case.args)
    return text.replace("{d}/", "").replace("|", "\\|")


def table(rows: list[Row], verdicts: tuple[str, ...] = VERDICTS) -> str:
    """The markdown table of ``rows`` and the count of each verdict (in ``verdicts``' order)."""
    lines = ["| case | family | command | verdict | message |", "|---|---|---|---|---|"]
    for row in rows:
        message = row.message.replace("|", "\\|").replace("\n", " ")[:220]
        lines.append(f"| {row.case.id} | {row.case.family} | `mapgen {command_text(row.case)}` | {row.verdict} "
                     f"| {message} |")
    counts = Counter(row.verdict for row in rows)
    lines += ["", "| verdict | cases |", "|---|---|"]
    lines += [f"| {v} | {counts[v]} |" for v in verdicts if counts[v]] + [f"| total | {len(rows)} |"]
    return "\n".join(lines)


def run_tour(cases: list[Case], jobs: int = 2, timeout: float = 60.0, root: Path | None = None) -> list[Row]:
    """Run ``cases`` (``jobs`` at a time) against fresh artefacts; the rows in case order."""
    with tempfile.TemporaryDirectory(prefix="tour-art-") as tmp:
        art = make_artefacts(Path(root or tmp))
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(lambda c: run_case(c, art, timeout), cases))


# ------------------------------------------------------------------------------------------------ checks


def stdout_has(*fragments: str) -> Check:
    def check(d: Path, out: str) -> str | None:
        missing = [f for f in fragments if f not in out]
        return f"output lacks {missing}" if missing else None
    return check


def file_has(name: str, *fragments: str) -> Check:
    def check(d: Path, out: str) -> str | None:
        path = d / name
        if not path.is_file() or path.stat().st_size == 0:
            return f"{name} missing or empty"
        text = path.read_bytes().decode("utf-8", "replace")
        missing = [f for f in fragments if f not in text]
        return f"{name} lacks {missing}" if missing else None
    return check


def png_size(name: str, width: int, height: int | None = None) -> Check:
    def check(d: Path, out: str) -> str | None:
        from PIL import Image

        path = d / name
        if not path.is_file():
            return f"{name} missing"
        with Image.open(path) as image:
            w, h = image.size
        if w != width or (height is not None and h != height):
            return f"{name} is {w}x{h}, expected {width}x{height or '?'}"
        return None
    return check


def map_values(name: str, expected: dict[str, float]) -> Check:
    """The render JSON ``name`` holds these region values (by code)."""
    def check(d: Path, out: str) -> str | None:
        path = d / name
        if not path.is_file():
            return f"{name} missing"
        spec = json.loads(path.read_text(encoding="utf-8"))
        spec = spec.get("spec", spec)
        values = spec.get("values") or {}
        wrong = {k: values.get(k) for k, v in expected.items() if values.get(k) != v}
        return f"values differ: {wrong}" if wrong else None
    return check


# ------------------------------------------------------------------------------------------------ cases

def err(cid: str, family: str, args: str | list[str], names: tuple[str, ...], fixes: tuple[str, ...] = (),
        **kw: Any) -> Case:
    """A bad input: a clear one-line refusal is expected."""
    argv = args.split() if isinstance(args, str) else args
    return Case(cid, family, argv, names=names, fixes=fixes, **kw)


def ok(cid: str, family: str, args: str | list[str], check: Check | None = None, **kw: Any) -> Case:
    """An odd but valid input: success with a result ``check`` accepts is expected."""
    argv = args.split() if isinstance(args, str) else args
    return Case(cid, family, argv, expect="ok", check=check, **kw)


def either(cid: str, family: str, args: str | list[str], names: tuple[str, ...], fixes: tuple[str, ...] = (),
           check: Check | None = None, **kw: Any) -> Case:
    """A borderline input: a clear refusal or a checked success both pass."""
    argv = args.split() if isinstance(args, str) else args
    return Case(cid, family, argv, names=names, fixes=fixes, expect="either", check=check, **kw)


RENDER_DATA = "render usa --data {d}/t.csv -o {d}/out.png"
STATES = ["Texas", "Ohio", "Maine", "Utah", "Iowa", "Idaho", "Nevada", "Oregon"]


def csv_of(values: list[str], header: str = "region,value", sep: str = ",") -> str:
    rows = [header] + [f"{region}{sep}{value}" for region, value in zip(STATES, values)]
    return "\n".join(rows) + "\n"


GOOD_CSV = csv_of([str(i * 10 + 5) for i in range(8)])
FIX_TABLE = ("utf-8", "save", "column", "row", "header", "--region-col", "--value-col", "give", "remove", "use ")


def table_cases() -> list[Case]:
    t = "tables"
    names = ("t.csv",)
    return [
        ok("T01", t, RENDER_DATA, map_values("out.json", {"TX": 5.0, "OR": 75.0}),
           files={"t.csv": b"\xef\xbb\xbf" + GOOD_CSV.encode()}),
        either("T02", t, RENDER_DATA, names, ("utf-8",), map_values("out.json", {"TX": 5.0}),
               files={"t.csv": GOOD_CSV.encode("utf-32")}),
        err("T03", t, RENDER_DATA, names, ("utf-8",),
            files={"t.csv": "region,value,note\nTexas,1,\u2018big\u2019\nOhio,2,x\n".encode("cp1252")}),
        err("T04", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": "region,value\n"}),
        err("T05", t, RENDER_DATA, names + ("value",), FIX_TABLE,
            files={"t.csv": "region,value,value\nTexas,1,2\nOhio,3,4\n"}),
        err("T06", t, RENDER_DATA, names + ("Texas",), FIX_TABLE, files={"t.csv": GOOD_CSV + "Texas,99\n"}),
        err("T07", t, RENDER_DATA, names + ("TX",), FIX_TABLE, files={"t.csv": GOOD_CSV + "TX,99\n"}),
        either("T08", t, RENDER_DATA, names, FIX_TABLE, map_values("out.json", {"TX": 1e300}),
               files={"t.csv": csv_of(["1e300", "2e300", "3", "4", "5", "6", "7", "8"])}),
        ok("T09", t, RENDER_DATA, map_values("out.json", {"TX": -5.0, "OH": -15.0}),
           files={"t.csv": csv_of([str(-5 - 10 * i) for i in range(8)])}),
        err("T10", t, RENDER_DATA, names + ("inf",), FIX_TABLE,
            files={"t.csv": csv_of(["inf", "2", "3", "4", "5", "6", "7", "8"])}),
        err("T11", t, RENDER_DATA, names, FIX_TABLE,
            files={"t.csv": csv_of(["1.5 km", "2000 m", "3 km", "4 km", "5 km", "6 km", "7 km", "8 km"])}),
        either("T12", t, RENDER_DATA, names, FIX_TABLE, map_values("out.json", {"TX": 1234.0}),
               files={"t.csv": csv_of(['"1,234"', '"2,345"', "3", "4", "5", "6", "7", "8"])}),
        either("T13", t, RENDER_DATA + " --kind percent", names, FIX_TABLE, map_values("out.json", {"TX": 12.0}),
               files={"t.csv": csv_of(["12%", "20%", "30%", "40%", "50%", "60%", "70%", "80%"])}),
        either("T14", t, RENDER_DATA, names, FIX_TABLE, map_values("out.json", {"TX": 5.0}),
               files={"t.csv": csv_of([str(i * 10 + 5) for i in range(8)], "region\tvalue", "\t")}),
        either("T15", t, RENDER_DATA, names, ("delimit", "comma", "separat"), map_values("out.json", {"TX": 5.0}),
               files={"t.csv": csv_of([str(i * 10 + 5) for i in range(8)], "region|value", "|")}),
        err("T16", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": b""}),
        err("T17", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": "\n\n   \n\n"}),
        err("T18", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4}),
        err("T19", t, RENDER_DATA + " --value-col population", ("population",), ("value",),
            files={"t.csv": GOOD_CSV}),
        err("T20", t, RENDER_DATA + " --region-col value", ("value",), FIX_TABLE, files={"t.csv": GOOD_CSV}),
        err("T21", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": csv_of([""] * 8)}),
        either("T22", t, RENDER_DATA + " --on-missing error", names, ("--on-missing", "add"),
               map_values("out.json", {"TX": 5.0}), files={"t.csv": GOOD_CSV}),
        err("T23", t, "render usa --data {d}/t.parquet -o {d}/out.png", ("t.parquet",), FIX_TABLE,
            files={"t.parquet": GOOD_CSV}),
        err("T24", t, "render usa --data {d}/t.xlsx -o {d}/out.png", ("t.xlsx",), ("csv",),
            files={"t.xlsx": b"PK\x03\x04" + bytes(200)}),
        err("T25", t, "render usa --data {d}/folder -o {d}/out.png", ("folder",), (), files={"folder/x": "1"}),
        err("T26", t, RENDER_DATA, names, FIX_TABLE,
            files={"t.csv": "region,value\n" + "".join(f"Nowhere {i},{i}\n" for i in range(200_000))}),
        err("T27", t, RENDER_DATA, names, FIX_TABLE, files={"t.csv": b"reg\x00ion,val\x00ue\nTexas,1\nOhio,2\n"}),
        ok("T28", t, RENDER_DATA, map_values("out.json", {"TX": 5.0}),
           files={"t.csv": GOOD_CSV.replace("\n", ",,\r\n").replace("region,value,,", "region,value,,")}),
        err("T29", t, RENDER_DATA, names + ("value",), FIX_TABLE,
            files={"t.csv": csv_of(["high", "low", "mid", "high", "low", "mid", "high", "low"])}),
        either("T30", t, RENDER_DATA, names, FIX_TABLE, map_values("out.json", {"TX": 5.0}),
               files={"t.csv": csv_of([str(i * 10 + 5) for i in range(8)], "Region Name,Value (people)")}),
    ]


def polygon_feature(name: Any, ring: list, kind: str = "Polygon") -> dict:
    coords = [ring] if kind == "Polygon" else ring
    return {"type": "Feature", "properties": {"name": name}, "geometry": {"type": kind, "coordinates": coords}}


def fc(features: list[dict], **extra: Any) -> str:
    return json.dumps({"type": "FeatureCollection", "features": features, **extra})


def squares(n: int = 3, scale: float = 1.0, names: list[Any] | None = None) -> list[dict]:
    out = []
    for i in range(n):
        ring = [[i * scale, 0], [(i + 1) * scale, 0], [(i + 1) * scale, scale], [i * scale, scale], [i * scale, 0]]
        out.append(polygon_feature(names[i] if names else f"Cell {i}", ring))
    return out


RENDER_GEO = "render {d}/a.geojson --data {d}/v.csv -o {d}/out.png"
VALUES3 = "region,value\nCell 0,1\nCell 1,2\nCell 2,3\n"
FIX_GEO = ("polygon", "feature", "--name-field", "give", "name", "crs", "fix", "save", "use ", "add ")


def atlas_cases() -> list[Case]:
    a = "atlases"
    g = ("a.geojson",)
    points = [{"type": "Feature", "properties": {"name": f"Cell {i}"},
               "geometry": {"type": "Point", "coordinates": [i, i]}} for i in range(3)]
    lines = [{"type": "Feature", "properties": {"name": f"Cell {i}"},
              "geometry": {"type": "LineString", "coordinates": [[i, 0], [i, 1]]}} for i in range(3)]
    bowtie = [[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]
    holed = {"type": "Feature", "properties": {"name": "Cell 2"}, "geometry": {"type": "Polygon", "coordinates": [
        [[2, 0], [3, 0], [3, 1], [2, 1], [2, 0]], [[2.4, 0.4], [2.6, 0.4], [2.6, 0.6], [2.4, 0.6], [2.4, 0.4]]]}}
    nullgeo = {"type": "Feature", "properties": {"name": "Cell 2"}, "geometry": None}
    return [
        err("A01", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": fc(points), "v.csv": VALUES3}),
        err("A02", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": fc(lines), "v.csv": VALUES3}),
        err("A03", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": fc([]), "v.csv": VALUES3}),
        either("A04", a, RENDER_GEO, g, FIX_GEO, png_size("out.png", 800),
               files={"a.geojson": json.dumps(squares(1)[0]["geometry"]), "v.csv": "region,value\nx,1\n"}),
        err("A05", a, RENDER_GEO, g + ("Cell 0",), FIX_GEO,
            files={"a.geojson": fc(squares(3, names=["Cell 0", "Cell 0", "Cell 2"])), "v.csv": VALUES3}),
        err("A06", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": fc(squares(3, scale=1e9)), "v.csv": VALUES3}),
        err("A07", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": "[]", "v.csv": VALUES3}),
        err("A08", a, RENDER_GEO, g, FIX_GEO, files={"a.geojson": fc(squares(3))[:-40], "v.csv": VALUES3}),
        err("A09", a, "render {d}/a.shp --data {d}/v.csv -o {d}/out.png", ("a.shp",), FIX_GEO + (".dbf", ".shx"),
            files={"a.shp": bytes(300), "v.csv": VALUES3}),
        err("A10", a, RENDER_GEO, g, ("--name-field",),
            files={"a.geojson": fc(squares(3, names=[1, 2, 3])).replace('"name"', '"pop"'), "v.csv": VALUES3}),
        err("A11", a, RENDER_GEO + " --name-field NAME_1", ("NAME_1",), ("name",),
            files={"a.geojson": fc(squares(3)), "v.csv": VALUES3}),
        either("A12", a, RENDER_GEO, g, FIX_GEO, png_size("out.png", 800),
               files={"a.geojson": fc(squares(1)), "v.csv": "region,value\nCell 0,4\n"}),
        either("A13", a, RENDER_GEO, g, FIX_GEO, png_size("out.png", 800),
               files={"a.geojson": fc([polygon_feature("Cell 0", bowtie)] + squares(3)[1:]), "v.csv": VALUES3}),
        err("A14", a, RENDER_GEO, g + ("Cell 2",), FIX_GEO,
            files={"a.geojson": fc(squares(2) + [nullgeo]), "v.csv": VALUES3}),
        either("A15", a, "render {d}/a.txt --data {d}/v.csv -o {d}/out.png", ("a.txt",), ("geojson", ".gpkg"),
               png_size("out.png", 800), files={"a.txt": fc(squares(3)), "v.csv": VALUES3}),
        err("A16", a, "atlas neighbors {grid} Narnia", ("Narnia",), ("Cell",)),
        err("A17", a, "atlas show atlantis", ("atlantis",), ("usa", "atlas list", "give a geojson")),
        err("A18", a, "atlas show {d}/shapes", ("shapes",), FIX_GEO, files={"shapes/readme.txt": "x"}),
        ok("A19", a, RENDER_GEO, png_size("out.png", 800),
           files={"a.geojson": fc(squares(2) + [holed]), "v.csv": VALUES3}),
        err("A20", a, RENDER_GEO, g + ("EPSG:999999",), ("crs",),
            files={"a.geojson": fc(squares(3), crs={"type": "name", "properties": {"name": "EPSG:999999"}}),
                   "v.csv": VALUES3}),
        err("A21", a, "atlas show {d}/a.geojson --code-field nope", ("nope",), ("field", "column"),
            files={"a.geojson": fc(squares(3))}),
        ok("A22", a, ["atlas", "neighbors", "{grid}", "Cell B2"], stdout_has("A2", "C2")),
    ]


BUILD = "build {d}/c.yaml -o {d}/out --quiet"
BASE = ("seed: 1\ncountries:\n  - {name: usa, maps: 1}\ncounterfactual: {country: usa, maps: 0}\n"
        "questions: {per_image: 2}\nvariants: {unannotated: false, hatched: false}\n")
FIX_CONFIG = ("did you mean", "valid", "give", "use", "remove", "must", "expected", "one of", "choose", "add",
              "write", "list", "mapping")


def config(text: str, base: str = BASE) -> dict[str, str | bytes]:
    return {"c.yaml": base + text}


def config_cases() -> list[Case]:
    c = "configs"
    y = ("c.yaml",)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
        f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))
    return [
        err("C01", c, BUILD, y, FIX_CONFIG, files={"c.yaml": b""}),
        err("C02", c, BUILD, y, FIX_CONFIG, files={"c.yaml": "# nothing here\n# still nothing\n"}),
        err("C03", c, BUILD, y, FIX_CONFIG, files={"c.yaml": "- usa\n- india\n"}),
        err("C04", c, BUILD, y, FIX_CONFIG, files={"c.yaml": "hello\n"}),
        err("C05", c, BUILD, y + ("contries",), FIX_CONFIG, files=config("contries: []\n")),
        err("C06", c, BUILD, y + ("map",), FIX_CONFIG,
            files=config("", base=BASE.replace("maps: 1", "maps: 1, map: 2"))),
        err("C07", c, BUILD, y + ("per_tmplate",), FIX_CONFIG,
            files=config("", base=BASE.replace("per_image: 2", "per_image: 2, per_tmplate: 3"))),
        err("C08", c, BUILD, y + ("hatch",), FIX_CONFIG,
            files=config("", base=BASE.replace("hatched: false", "hatched: false, hatch: true"))),
        err("C09", c, BUILD, y + ("class",), FIX_CONFIG, files=config("legend: {class: [4]}\n")),
        err("C10", c, BUILD, y + ("countries",), FIX_CONFIG,
            files=config("", base=BASE.replace("countries:\n  - {name: usa, maps: 1}", "countries: {usa: 1}"))),
        err("C11", c, BUILD, y + ("classes",), FIX_CONFIG, files=config("legend: {classes: '5'}\n")),
        err("C12", c, BUILD, y + ("seed",), FIX_CONFIG, files=config("", base=BASE.replace("seed: 1", "seed: -1"))),
        err("C13", c, BUILD, y + ("seed",), FIX_CONFIG, files=config("", base=BASE.replace("seed: 1", "seed: 1.5"))),
        either("C14", c, BUILD, y + ("name",), FIX_CONFIG, file_has("out/questions.jsonl", "question_id"),
               files=config("name: ../../evil\n")),
        err("C15", c, BUILD, ("nope.csv",), FIX_CONFIG + ("path",),
            files=config("", base=BASE.replace("maps: 1}", "maps: 1, statistics: {files: [nope.csv]}}"))),
        err("C16", c, BUILD, ("tables",), FIX_CONFIG + ("file",),
            files={**config("", base=BASE.replace("maps: 1}", "maps: 1, statistics: {files: [tables]}}")),
                   "tables/a.csv": GOOD_CSV}),
        err("C17", c, "build {d}/cfg -o {d}/out", ("cfg",), ("yaml", "file"), files={"cfg/x.yaml": BASE}),
        err("C18", c, "build {d}/missing.yaml -o {d}/out", ("missing.yaml",), ("mapwise", "small", "path", "exist")),
        err("C19", c, BUILD, y + ("ratios",), FIX_CONFIG, files=config("split: {ratios: {test: 0, train: 0}}\n")),
        err("C20", c, BUILD, y + ("ratios",), FIX_CONFIG, files=config("split: {ratios: {test: -1, train: 2}}\n")),
        err("C21", c, BUILD, y + ("no_such_template",), FIX_CONFIG,
            files=config("", base=BASE.replace("per_image: 2", "per_image: 2, templates: [no_such_template]"))),
        err("C22", c, BUILD, y + ("Bluez",), FIX_CONFIG, files=config("", base=BASE.replace(
            "hatched: false", "hatched: false, colormaps: [Bluez]"))),
        err("C23", c, BUILD, y + ("blurple",), FIX_CONFIG, files=config("", base=BASE.replace(
            "hatched: false", "hatched: false, backgrounds: [blurple]"))),
        err("C24", c, BUILD, y + ("tasks",), FIX_CONFIG, files=config("tasks: vqa\n")),
        err("C25", c, BUILD, y, ("tab", "space", "indent"), files=config("questions:\n\tper_image: 2\n", base="seed: 1\n")),
        err("C26", c, BUILD, y, FIX_CONFIG + ("utf-8", "text"), files={"c.yaml": b"seed: 1\x00\x00\xff\xfe\n"}),
        err("C27", c, BUILD, ("nopack",), FIX_CONFIG + ("folder", "path"),
            files=config("", base=BASE.replace("per_image: 2", "per_image: 2, packs: [nopack]"))),
        err("C28", c, BUILD, y + ("width",), FIX_CONFIG, files=config("", base=BASE.replace(
            "hatched: false", "hatched: false, width: 50"))),
        err("C29", c, BUILD, y + ("nostyle",), FIX_CONFIG, files=config("", base=BASE.replace(
            "hatched: false", "hatched: false, styles: [nostyle]"))),
        err("C30", c, BUILD, y + ("xx",), FIX_CONFIG,
            files=config("", base=BASE.replace("maps: 1}", "maps: 1, language: xx}"))),
        err("C31", c, BUILD, y + ("x-anchors",), FIX_CONFIG + ("alias", "anchor"),
            files={"c.yaml": "x-anchors:\n" + "".join("  " + line + "\n" for line in bomb.splitlines()) + BASE}),
        err("C32", c, "build smal -o {d}/out", ("smal",), ("small",)),
        err("C33", c, BUILD, y + ("atlantis",), FIX_CONFIG,
            files=config("", base=BASE.replace("{country: usa, maps: 0}", "{country: atlantis, maps: 1}"))),
        err("C34", c, BUILD, y + ("referring_per_map",), FIX_CONFIG, files=config("referring_per_map: true\n")),
        err("C35", c, BUILD, y + ("variants",), FIX_CONFIG, files=config("variants: [annotated]\n", base=BASE.replace(
            "variants: {unannotated: false, hatched: false}\n", ""))),
        err("C36", c, BUILD, y + ("annotated",), FIX_CONFIG, files=config("", base=BASE.replace(
            "unannotated: false", "annotated: false, unannotated: false"))),
    ]


def out_exists(name: str) -> Check:
    def check(d: Path, out: str) -> str | None:
        return None if (d / name).exists() else f"{name} not written"
    return check


def output_cases() -> list[Case]:
    o = "outputs"
    stat = "render usa --stat population_2020"
    fix_path = ("choose", "give", "another", "--force", "folder", "-o", "path")
    return [
        err("O01", o, stat + " -o {d}/file.txt/out.png", ("file.txt",), fix_path, files={"file.txt": "x"}),
        err("O02", o, stat + " -o /sys/mapgen-tour/out.png", ("/sys/mapgen-tour",), fix_path),
        err("O03", o, "render {d}/m.json -o {d}/m.png", ("m.json",), fix_path,
            setup=lambda d, art: shutil.copy(art.map, d / "m.json")),
        err("O04", o, stat + " -o {d}/out.jpg", (".jpg",), (".png",)),
        err("O05", o, "spec usa --stat population_2020 -o {d}/folder", ("folder",), fix_path,
            files={"folder/keep": "x"}),
        err("O06", o, "export {d}/bench --format jsonl -o {d}/bench/exported", ("exported",), fix_path,
            setup=copy_bench),
        err("O07", o, "eval {d}/bench --baseline random -o {d}/bench/maps", ("maps",), fix_path, setup=copy_bench),
        err("O08", o, "build {root}/tiny.yaml -o {d}/full --quiet", ("full",), ("--force", "empty", "another"),
            files={"full/precious.txt": "keep me"}),
        err("O09", o, "build {root}/tiny.yaml -o {d}/afile --quiet", ("afile",), fix_path, files={"afile": "x"}),
        err("O10", o, "questions {d}/m.json -o {d}/m.json", ("m.json",), fix_path,
            setup=lambda d, art: shutil.copy(art.map, d / "m.json")),
        err("O11", o, "describe {d}/m.json -o {d}/m.json", ("m.json",), fix_path,
            setup=lambda d, art: shutil.copy(art.map, d / "m.json")),
        err("O12", o, "templates new my_t -o {d}/pack", ("pack",), fix_path + ("exists",),
            files={"pack/templates.yaml": "templates: []\n"}),
        err("O13", o, "stats synth usa -o /sys/mapgen-tour/t.csv", ("/sys/mapgen-tour",), fix_path),
        err("O14", o, "report {d}/bench -o {d}/bench", ("bench",), fix_path, setup=copy_bench),
        err("O15", o, "audit {d}/bench -o {d}/bench/audit --quiet", ("audit",), fix_path, setup=copy_bench),
        err("O16", o, "counterfactual {map} -o {d}/bench/cf", ("cf",), fix_path, setup=copy_bench),
        err("O17", o, "export {bench} --format jsonl -o {d}/afile", ("afile",), fix_path, files={"afile": "x"}),
        err("O18", o, "build {d}/c.yaml -o {d}/bench --quiet", ("bench",), ("--force",),
            files={"c.yaml": TINY_CONFIG.replace("seed: 3", "seed: 9")}, setup=copy_bench),
        err("O19", o, "spec usa --stat population_2020 -o /proc/tour/spec.json", ("/proc/tour",), fix_path),
        err("O20", o, stat + " -o {d}/m.json", ("-o", ".json"), (".png", ".svg", "suffix")),
        err("O21", o, "render {spec} -o {spec}", ("-o", ".json"), fix_path + (".png",)),
        err("O22", o, "describe {map} --records {d}/bench", ("bench",), fix_path, setup=copy_bench),
    ]


def pack(templates: str, definitions: str = "") -> dict[str, str | bytes]:
    return {"pack/templates.yaml": (f"definitions:\n{definitions}" if definitions else "") + templates}


def template(text: str = "Is {{ X }} higher than {{ Y }}?", program: str = "      - answer: compare(X, 'higher', Y)",
             tid: str = "my_t", answer_type: str = "binary", params: str | None = None, uses: str = "[higher]") -> str:
    params = params if params is not None else ("      X: Region\n"
                                                "      Y: {type: Region, from: \"others(readable_regions(), X)\"}\n")
    return (f"  - id: {tid}\n    answer_type: {answer_type}\n    map_types: [discrete, continuous]\n"
            f"    params:\n{params}    text:\n      - \"{text}\"\n    program:\n{program}\n    uses: {uses}\n")


DEFS = "  higher: the value of one region is in a higher legend class\n"
LINT = "templates lint {d}/pack"
FIX_PACK = ("templates functions", "one of", "did you mean", "give", "use", "add", "remove", "must", "expected",
            "define", "valid", "lint", "write", "rename", "needs", "fix the", "at most")


def pack_cases() -> list[Case]:
    p = "templates"
    yml = ("templates.yaml",)

    def good(**kw: Any) -> dict[str, str | bytes]:
        return pack("templates:\n" + template(**kw), DEFS)
    return [
        err("P01", p, LINT, yml, FIX_PACK + ("line",), files=pack("templates:\n  - id: [unclosed\n", DEFS)),
        err("P02", p, LINT, yml + ("templates",), FIX_PACK, files=pack("templates: {my_t: 1}\n", DEFS)),
        err("P03", p, LINT, yml + ("frobnicate",), FIX_PACK,
            files=good(program="      - answer: frobnicate(X, Y)")),
        err("P04", p, LINT, yml + ("boolean",), FIX_PACK, files=good(answer_type="boolean")),
        err("P05", p, LINT, yml + ("Regoin",), FIX_PACK,
            files=good(params="      X: Regoin\n      Y: {type: Region, from: \"others(readable_regions(), X)\"}\n")),
        err("P06", p, LINT, yml + ("text",), FIX_PACK,
            files=pack("templates:\n" + template().replace('    text:\n      - "Is {{ X }} higher than {{ Y }}?"\n',
                                                         "    text: []\n"), DEFS)),
        err("P07", p, LINT, yml + ("my_t",), FIX_PACK, files=pack("templates:\n" + template() + template(), DEFS)),
        err("P08", p, LINT, yml, FIX_PACK, files=good(text="Is {{ X  higher than {{ Y }}?")),
        err("P09", p, LINT, yml + ("Z",), FIX_PACK, files=good(text="Is {{ Z }} higher than {{ Y }}?")),
        err("P10", p, LINT, yml + ("answer",), FIX_PACK, files=good(program="      - step: compare(X, 'higher', Y)")),
        err("P11", p, LINT, yml + ("higher",), FIX_PACK, files=pack("templates:\n" + template())),
        err("P12", p, LINT, ("functions.py",), FIX_PACK + ("syntax", "line"),
            files={**good(), "pack/functions.py": "def broken(:\n    pass\n"}),
        err("P13", p, LINT, ("functions.py",), FIX_PACK + ("raise", "import"),
            files={**good(), "pack/functions.py": "raise RuntimeError('boom at import')\n"}),
        err("P14", p, "templates lint {d}/nopack", ("nopack",), ("folder", "path", "yaml", "exist")),
        err("P15", p, LINT, yml, FIX_PACK + ("empty",), files={"pack/templates.yaml": b""}),
        err("P16", p, "questions {map} --templates {d}/pack", yml + ("frobnicate",), FIX_PACK,
            files=good(program="      - answer: frobnicate(X, Y)")),
        err("P17", p, "templates preview no_such_t --map {map}", ("no_such_t",),
            ("templates list", "did you mean", "ids:")),
        err("P18", p, "templates preview my_t --templates {d}/pack --map {bench}/questions.jsonl",
            ("questions.jsonl",), ("render", "map json", ".json"), files=good()),
        err("P19", p, "templates list --templates {d}/nopack", ("nopack",), ("folder", "path", "yaml", "exist")),
        err("P20", p, "templates new bad/id! -o {d}/newpack", ("bad/id!",), ("letters", "id", "use", "_")),
        err("P21", p, LINT, yml, ("budget", "smaller", "limit", "loop", "at most"),
            files=good(text="{% for i in range(10**9) %}{{ i }}{% endfor %} {{ X }} {{ Y }}")),
        err("P22", p, LINT, yml, ("sandbox", "unsafe", "attribute", "not allowed", "refused"),
            files=good(text="{{ X.__class__.__init__.__globals__ }} {{ Y }}")),
        err("P23", p, LINT, yml, ("budget", "smaller", "limit", "recurs"),
            files=good(text="{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }} {{ X }} {{ Y }}")),
        err("P24", p, LINT, yml, ("sandbox", "unsafe", "not allowed", "refused", "cycler"),
            files=good(text="{{ cycler.__init__.__globals__.os }} {{ X }} {{ Y }}")),
        err("P25", p, LINT, yml, ("import", "not allowed", "refused", "sandbox"),
            files=good(text="{% import 'x.j2' as m %}{{ X }} {{ Y }}")),
        err("P26", p, LINT, yml + ("pie",), FIX_PACK,
            files=pack("templates:\n" + template().replace("[discrete, continuous]", "[pie]"), DEFS)),
        err("P27", p, LINT, yml + ("my_t",), FIX_PACK, files=pack("templates:\n" + template().replace(
            "    uses: [higher]\n", "    uses: [higher]\n    colour: red\n"), DEFS)),
        ok("P28", p, "templates preview my_t --templates {d}/pack --map {map} -n 2", stdout_has("Q: Is "),
           files={"pack/templates.yaml": "\ufeff" + good()["pack/templates.yaml"]}),  # type: ignore[operator]
    ]


STYLE_RENDER = "render usa --stat population_2020 --style {d}/s.yaml -o {d}/out.png"
FIX_STYLE = ("did you mean", "one of", "valid", "give", "use", "must", "expected", "styles show", "#rrggbb")


def style_cases() -> list[Case]:
    s = "styles"
    y = ("s.yaml",)
    return [
        err("S01", s, STYLE_RENDER, y, FIX_STYLE + ("line",), files={"s.yaml": "title: {size: [20\n"}),
        either("S02", s, STYLE_RENDER, y + ("Comic Sans MS",), FIX_STYLE + ("installed", "font"),
               png_size("out.png", 800), files={"s.yaml": "fonts: {title: Comic Sans MS}\n"}),
        err("S03", s, STYLE_RENDER, y + ("#ggg",), FIX_STYLE, files={"s.yaml": "title: {color: '#ggg'}\n"}),
        err("S04", s, STYLE_RENDER, y + ("titel",), FIX_STYLE, files={"s.yaml": "titel: {size: 20}\n"}),
        err("S05", s, STYLE_RENDER, y + ("size",), FIX_STYLE, files={"s.yaml": "title: {size: big}\n"}),
        err("S06", s, STYLE_RENDER, y + ("size",), FIX_STYLE, files={"s.yaml": "title: {size: -20}\n"}),
        either("S07", s, STYLE_RENDER, y, FIX_STYLE + ("empty",), png_size("out.png", 800), files={"s.yaml": ""}),
        err("S08", s, "styles show newsrom", ("newsrom",), ("newsroom",)),
        err("S09", s, STYLE_RENDER, y, FIX_STYLE + ("mapping",), files={"s.yaml": "- title\n- legend\n"}),
        err("S10", s, STYLE_RENDER, y + ("middle",), FIX_STYLE + ("use right",), files={"s.yaml": "legend: {position: middle}\n"}),
        err("S11", s, "render usa --stat population_2020 --style {d}/nostyle.yaml -o {d}/out.png", ("nostyle.yaml",),
            ("styles list", "preset", "path", "exist")),
        err("S12", s, "styles show {d}/s.yaml", y + ("borders",), FIX_STYLE, files={"s.yaml": "borders: 3\n"}),
        err("S13", s, STYLE_RENDER, y + ("width",), FIX_STYLE, files={"s.yaml": "borders: {width: .inf}\n"}),
        err("S14", s, "styles show {d}/s.png", ("s.png",), FIX_STYLE + ("yaml",), files={"s.png": b"\x89PNG\r\n"}),
    ]


def predictions(make: Callable[[list[str]], str | bytes], name: str = "p.jsonl") -> Setup:
    """A setup writing ``make(question ids)`` to ``name`` in the case folder."""
    def setup(d: Path, art: Artefacts) -> None:
        content = make(question_ids(art))
        (d / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return setup


def jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


EVAL_P = "eval {bench} --predictions {d}/p.jsonl -o {d}/out --no-plots"
FIX_PRED = ("question_id", "prediction", "json", "line", "give", "utf-8", "one object")


def summary_has(*fragments: str) -> Check:
    return file_has("out/summary.json", *fragments)


def prediction_cases() -> list[Case]:
    e = "predictions"
    p = ("p.jsonl",)
    return [
        err("E01", e, EVAL_P, p, FIX_PRED,
            setup=predictions(lambda ids: json.dumps([{"question_id": i, "prediction": "x"} for i in ids]))),
        err("E02", e, EVAL_P, p, FIX_PRED,
            setup=predictions(lambda ids: jsonl([{"question_id": n, "prediction": "x"} for n in range(len(ids))]))),
        either("E03", e, EVAL_P, p + ("prediction",), FIX_PRED, summary_has("score"),
            setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": {"a": 1}} for i in ids]))),
        either("E04", e, EVAL_P, p, ("utf-8",), stdout_has("p.jsonl:", "UTF-8"),
            setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": "x"} for i in ids]).encode()
                              + b'{"question_id": "\xff\xfe", "prediction": "\xe9"}\n')),
        either("E05", e, EVAL_P, p, FIX_PRED, summary_has("score"),
               setup=predictions(lambda ids: jsonl([{"question_id": ids[0], "prediction": "x" * 5_000_000}]
                                                   + [{"question_id": i, "prediction": "x"} for i in ids[1:]]))),
        err("E06", e, EVAL_P, p, FIX_PRED + ("empty",), setup=predictions(lambda ids: "\n\n  \n\t\n")),
        err("E07", e, EVAL_P, p + ("prediction",), FIX_PRED,
            setup=predictions(lambda ids: jsonl([{"question_id": i} for i in ids]))),
        ok("E08", e, EVAL_P, summary_has("score"),  # id and answer are accepted spellings of the keys
           setup=predictions(lambda ids: jsonl([{"id": i, "answer": "x"} for i in ids]))),
        either("E09", e, EVAL_P, p, FIX_PRED, stdout_has("p.jsonl:1"),
            setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": "x"} for i in ids]).encode()
                              .replace(b"\n", b"\x00\n", 1))),
        either("E10", e, EVAL_P, p, FIX_PRED, summary_has('"missing"'),
               setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": "x"} for i in ids[:3]]))),
        either("E11", e, EVAL_P, p + ("prediction",), FIX_PRED, summary_has("score"),
               setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": None} for i in ids]))),
        err("E12", e, "eval {bench} --predictions {d}/pdir -o {d}/out", ("pdir",), ("file",),
            files={"pdir/x.jsonl": "{}"}),
        err("E13", e, "eval {bench} --predictions {d}/none.jsonl -o {d}/out", ("none.jsonl",), ("exist", "path")),
        ok("E14", e, EVAL_P, summary_has("score"),
           setup=predictions(lambda ids: "\ufeff" + jsonl([{"question_id": i, "prediction": "Yes"} for i in ids]))),
        err("E15", e, EVAL_P, p, FIX_PRED,
            setup=predictions(lambda ids: "question_id,prediction\n" + "".join(f"{i},x\n" for i in ids))),
        either("E16", e, EVAL_P, p + ("line",), FIX_PRED, stdout_has("p.jsonl:1", "not valid JSON"),
            setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": "x"} for i in ids])
                              .replace("}\n", "} trailing\n", 1))),
        err("E17", e, EVAL_P, p, FIX_PRED + ("question_id",),
            setup=predictions(lambda ids: jsonl([{"question_id": f" {i} ", "prediction": "x"} for i in ids]))),
        err("E18", e, EVAL_P, p, FIX_PRED, setup=predictions(lambda ids: jsonl([[i, "x"] for i in ids]))),
        err("E19", e, EVAL_P, p, FIX_PRED, setup=predictions(lambda ids: "null\n" * len(ids))),
        ok("E20", e, EVAL_P, summary_has("score"),
           setup=predictions(lambda ids: jsonl([{"question_id": i, "prediction": 7} for i in ids]))),
    ]


def eval_cases() -> list[Case]:
    v = "eval"
    base = "eval {bench} --baseline random -o {d}/out --no-plots"
    return [
        err("V01", v, base + " --split validation", ("validation",), ("train", "test")),
        err("V02", v, base + " --prompt nosuch", ("nosuch",), ("prompt --list", "direct", "--model only")),
        err("V03", v, base + " --prompt {d}/pr.yaml", ("pr.yaml",), ("line", "yaml", "give", "must"),
            files={"pr.yaml": "system: [unclosed\n"}),
        err("V04", v, "eval {bench} --model gpt4 -o {d}/out", ("gpt4",), ("openai:", "--base-url")),
        err("V05", v, "eval {bench} --model openai:x --base-url http://127.0.0.1:9/v1 --retries 0 --timeout 3 "
            "--api-key-env HOME -o {d}/out --no-plots", ("127.0.0.1:9",), ("server", "--base-url", "running")),
        err("V06", v, base + " --timeout -5", ("--timeout",), ("positive", "greater", "> 0", "give")),
        err("V07", v, base + " --timeout 0", ("--timeout",), ("positive", "greater", "> 0", "give")),
        err("V08", v, "eval {bench} --baseline random --predictions {d}/p.jsonl -o {d}/out", ("--baseline",),
            ("one of", "either", "only one"), files={"p.jsonl": "{}\n"}),
        err("V09", v, "eval {bench} -o {d}/out", ("--predictions",), ("--baseline",)),
        err("V10", v, "eval {d}/f.txt --baseline random -o {d}/out", ("f.txt",), ("build", "folder"),
            files={"f.txt": "x"}),
        err("V11", v, "eval {bench} --model openai:x --base-url http://127.0.0.1:9/v1 --cache {d}/cdir -o {d}/out",
            ("cdir",), ("file",), files={"cdir/x": "1"}),
        ok("V12", v, base + " --box-scale pixels", summary_has("score")),
        ok("V13", v, base + " --format mcq", summary_has("score")),
        ok("V14", v, "eval {bench} --baseline prior -o {d}/out --no-plots", summary_has("score")),
        ok("V15", v, base + " --limit 1000000", summary_has("score")),
        err("V16", v, base + " --concurrency 0", ("--concurrency",), ("1<=x<=64", "1 to 64")),
        err("V17", v, base + " --split", ("--split",), ("train", "test", "argument")),
        either("V18", v, "eval {bench} --baseline random -o {d}/out --no-plots --cache {d}/c.jsonl", ("--cache",),
               ("--model",), summary_has("score")),
    ]


RENDER = "render usa --stat population_2020 -o {d}/out.png"


def render_cases() -> list[Case]:
    r = "render"

    def opt(cid: str, extra: str, names: tuple[str, ...], fixes: tuple[str, ...], **kw: Any) -> Case:
        return err(cid, r, RENDER + " " + extra, names, fixes, **kw)
    size_fix = ("WIDTHxHEIGHT", "e.g.", "between", "from")
    return [
        opt("R01", "--size 0x0", ("--size",), size_fix),
        opt("R02", "--size 100000x100000", ("--size",), size_fix),
        opt("R03", "--size abc", ("--size",), size_fix + ("800x600",)),
        opt("R04", "--size -800x600", ("--size",), size_fix),
        ok("R05", r, RENDER + " --size 801x601", png_size("out.png", 801, 601)),
        opt("R06", "--colormap Bluez", ("Bluez",), ("Blues",)),
        opt("R07", "--colormap Blues_r_r", ("Blues_r_r",), ("Blues", "_r")),
        opt("R08", "--classes 2", ("--classes",), ("3", "8")),
        opt("R09", "--classes -1", ("--classes",), ("3", "8")),
        opt("R10", "--breaks 3e7,2e7,1e7", ("--breaks",), ("increas", "ascend", "order")),
        opt("R11", "--breaks a,b", ("--breaks",), ("1,2,3", "number")),
        opt("R12", "--breaks 1e400", ("--breaks",), ("finite", "number", "1,2,3")),
        opt("R13", "--legend continuous --scale clip --clip 98,2", ("--clip",), ("2,98", "lower", "less")),
        opt("R14", "--legend continuous --scale clip --clip 0,200", ("--clip",), ("0", "100")),
        err("R15", r, "render usa --data {d}/t.csv --legend continuous --scale log -o {d}/out.png", ("log",),
            ("positive", "linear", "--scale"), files={"t.csv": csv_of([str(-5 + 3 * i) for i in range(8)])}),
        opt("R16", "--legend continuous --midpoint nan", ("--midpoint",), ("number", "finite")),
        opt("R17", "--background notacolour", ("notacolour",), ("#rrggbb", "white")),
        opt("R18", "--hatched --legend continuous", ("hatched",), ("discrete",)),
        err("R19", r, "render -o {d}/out.png", ("SOURCE",), ("missing", "argument")),
        err("R20", r, "render atlantis --stat population_2020 -o {d}/out.png", ("atlantis",), ("usa", "atlas")),
        opt("R21", "-o {d}/out.html", ("html",), ("plotly", ".png")),
        ok("R22", r, RENDER + " --title ''".replace(" ''", "") + " --no-title", png_size("out.png", 800)),
        either("R23", r, RENDER + " --title " + "W" * 3000, ("--title",), ("shorter", "characters"),
               png_size("out.png", 800)),
        ok("R24", r, RENDER + " --names", png_size("out.png", 800)),
        err("R25", r, "render {d}/jobs.csv -o {d}/outdir", ("jobs.csv",), ("source",),
            files={"jobs.csv": "src,output\nusa,a.png\n"}),
        err("R26", r, "render {map} --stat population_2010 -o {d}/out.png", ("--stat",), ("map json", "drop", "without")),
        opt("R27", "--midpoint 1e308 --legend continuous", ("--midpoint",), ("between", "within", "range")),
        either("R28", r, RENDER + " --classes 5 --breaks 1e6,1e7", ("--breaks",), ("--classes", "class"),
               png_size("out.png", 800)),
        opt("R29", "--legend-position middle", ("--legend-position",), ("right",)),
        opt("R30", "--renderer plotly -o {d}/out.svg --size 10x10", ("--size",), size_fix),
        opt("R31", "--scheme fisher", ("fisher",), ("quantiles",)),
        either("R32", r, RENDER + " --legend continuous --scale log --clip 2,98", ("clip",), ("--scale clip",),
               png_size("out.png", 800)),
    ]


def tamper(edit: Callable[[Path], None]) -> Setup:
    """A setup copying the benchmark to ``{d}/bench`` and applying ``edit`` to the copy."""
    def setup(d: Path, art: Artefacts) -> None:
        edit(copy_bench(d, art))
    return setup


def append(name: str, data: bytes) -> Callable[[Path], None]:
    def edit(bench: Path) -> None:
        with (bench / name).open("ab") as handle:
            handle.write(data)
    return edit


def remove(name: str) -> Callable[[Path], None]:
    def edit(bench: Path) -> None:
        (bench / name).unlink()
    return edit


def first_png(bench: Path) -> str:
    return "maps/" + sorted(p.name for p in (bench / "maps").glob("*-annotated.png"))[0]


def export_cases() -> list[Case]:
    x = "export-report"
    fix_bench = ("--resume", "rebuild", "mapgen build", "build")
    return [
        err("X01", x, "export {d}/bench --format jsonl -o {d}/out", ("manifest.json",), fix_bench,
            setup=tamper(remove("manifest.json"))),
        err("X02", x, "export {bench} --format lmms-eval --split validation -o {d}/out", ("validation",),
            ("train", "test")),
        err("X03", x, "export {d}/empty --format jsonl -o {d}/out", ("empty",), fix_bench, files={"empty/.keep": ""}),
        err("X04", x, "export {bench}/questions.jsonl --format jsonl -o {d}/out", ("questions.jsonl",),
            ("directory", "folder")),
        err("X05", x, "export {d}/bench --format hf -o {d}/out", ("png",), fix_bench,
            setup=tamper(lambda b: (b / first_png(b)).unlink())),
        ok("X06", x, "export {bench} --format mapwise --wording mapgen -o {d}/out", out_exists("out")),
        err("X07", x, "export {bench} --format jsonl -o {d}/full", ("full",), ("--force",), files={"full/x": "1"}),
        err("X08", x, "report {bench} -o {d}/site --eval {d}/noeval", ("noeval",), ("mapgen eval", "exist")),
        err("X09", x, "report {bench} -o {d}/site --eval {d}/emptyeval", ("emptyeval",), ("mapgen eval",),
            files={"emptyeval/.keep": ""}),
        err("X10", x, "report {bench} -o {d}/site --audit {d}/aud", ("aud",), ("mapgen audit",),
            files={"aud/summary.json": "{not json", "aud/audit.jsonl": "garbage\n"}),
        ok("X11", x, ["report", "{bench}", "-o", "{d}/site", "--title", "<script>alert(1)</script>"],
           lambda d, out: ("title not escaped" if "<script>alert(1)" in (d / "site/index.html").read_text()
                           else None)),
        err("X12", x, "export {d}/bench --format jsonl -o {d}/out", ("questions.jsonl",), fix_bench,
            setup=tamper(lambda b: (b / "questions.jsonl").write_bytes((b / "questions.jsonl").read_bytes()[:-200]))),
        err("X13", x, "report {d}/bench -o {d}/site", ("manifest.json",), fix_bench,
            setup=tamper(lambda b: (b / "manifest.json").write_text("{garbage"))),
        err("X14", x, "report {bench} -o {d}/site --eval {bench}", ("--eval",), ("mapgen eval",)),
        err("X15", x, "export {d}/bench --format llava -o {d}/out", ("maps.jsonl",), fix_bench,
            setup=tamper(append("maps.jsonl", b'{"map_id": "ghost"}\n'))),
        err("X16", x, "eval {d}/bench --baseline pixel -o {d}/out --no-plots", ("png",), fix_bench,
            setup=tamper(lambda b: (b / first_png(b)).write_bytes(b"\x89PNG\r\n\x1a\n"))),
        err("X17", x, "prompt {d}/bench --question usa-0000-annotated-direction_local_extreme-2af69d0d50", ("captions.jsonl",), fix_bench,
            setup=tamper(append("captions.jsonl", b"{}\n"))),
        err("X18", x, "audit {d}/bench -o {d}/out --quiet", ("png",), fix_bench,
            setup=tamper(lambda b: (b / first_png(b)).unlink())),
        ok("X19", x, "info {d}/bench", stdout_has("fail"),
           setup=tamper(append("grounding.jsonl", b"\n"))),
        err("X20", x, "counterfactual {d}/bench -o {d}/out --kind imaginary", ("questions.jsonl",), fix_bench,
            setup=tamper(append("questions.jsonl", b'{"question_id": "fake"}\n'))),
    ]


def misc_cases() -> list[Case]:
    m = "commands"
    return [
        err("M01", m, "spec usa -o {d}/s.json", ("--stat",), ("--data", "stats list")),
        err("M02", m, "spec --from-metadata {d}/meta.json", ("meta.json",), ("json", "line"),
            files={"meta.json": "{broken"}),
        err("M03", m, "spec usa --stat population_2020 --seed -1", ("--seed",), ("0", "range")),
        err("M04", m, "scene {d}/x.png", ("x.png",), ("spec", "json"), files={"x.png": b"\x89PNG\r\n\x1a\n"}),
        err("M05", m, "scene {d}/x.json", ("x.json",), ("spec", "mapgen spec"), files={"x.json": "[1, 2]"}),
        err("M06", m, "scene {d}/x.json", ("x.json",), ("spec", "mapgen spec", "values"),
            setup=lambda d, art: (d / "x.json").write_text(json.dumps(
                {k: v for k, v in json.loads(art.spec.read_text()).items() if k != "values"}))),
        err("M07", m, "questions {bench}/questions.jsonl", ("questions.jsonl",), ("render", "map json", "spec")),
        err("M08", m, "questions {map} --seed -1", ("--seed",), ("0<=x", "0 to")),
        err("M09", m, "prompt {bench} --question nosuchq", ("nosuchq",), ("question", "info")),
        ok("M10", m, "prompt --list", stdout_has("direct")),
        err("M11", m, "prompt --template my_t", ("--map",), ("--map",)),
        err("M12", m, "prompt {bench} --question usa-0000-annotated-direction_local_extreme-2af69d0d50 --prompt nosuch", ("nosuch",), ("--list", "direct")),
        err("M13", m, "info {d}/empty", ("empty",), ("mapgen build", "build"), files={"empty/.keep": ""}),
        err("M14", m, "info {d}/f.txt", ("f.txt",), ("folder", "build"), files={"f.txt": "x"}),
        err("M15", m, "audit {d}/empty -o {d}/out --quiet", ("empty",), ("build",), files={"empty/.keep": ""}),
        err("M16", m, "counterfactual {map} --kind mirrored -o {d}/out", ("mirrored",), ("imaginary",)),
        err("M17", m, ["counterfactual", "{map}", "--kind", "", "-o", "{d}/out"], ("--kind",), ("imaginary",)),
        err("M18", m, "recheck {d}/empty -o {d}/out", ("empty",), ("import", "mapwise"), files={"empty/.keep": ""}),
        either("M19", m, "describe {spec}", ("spec.json",), ("render",), stdout_has("caption")),
        ok("M20", m, "describe {map} --n-referring 0", stdout_has("{")),
        err("M21", m, "stats show usa population_2030", ("population_2030",), ("population_2020",)),
        err("M22", m, "stats synth narnia", ("narnia",), ("usa", "atlas list", "did you mean")),
        err("M23", m, "stats synth usa --low 10 --high 1", ("--low",), ("--high",)),
        err("M24", m, "stats synth usa --missing 1000", ("--missing",), ("51", "fewer", "at most")),
        err("M25", m, "import mapwise {d}/empty -o {d}/out", ("empty",), ("mapwise", "sample"),
            files={"empty/.keep": ""}),
        err("M26", m, "templates show no_such_template", ("no_such_template",), ("templates list", "ids:")),
        err("M27", m, "atlas group usa no_such_group", ("no_such_group",), ("atlas group usa", "valid", "one of")),
        ok("M28", m, "info {bench} --json", stdout_has('"questions"')),
        err("M29", m, "stats synth usa --low nan", ("--low",), ("number", "finite")),
        err("M30", m, "stats synth usa --spatial 2", ("--spatial",), ("0.0<=x<=1.0",)),
        err("M31", m, "describe {map} --records {d}/f.txt", ("f.txt",), ("folder", "directory"), files={"f.txt": "x"}),
        err("M32", m, "scene {d}/s.json", ("s.json",), ("utf-8", "json"), files={"s.json": b"\xff\xfe{\x00}"}),
    ]


def signal_cases() -> list[Case]:
    g = "signals"
    render = "render usa --stat population_2020 -o {d}/out.png"
    pixel = "eval {bench} --baseline pixel -o {d}/out"
    export = "export {bench} --format hf -o {d}/out"
    return [
        Case("G01", g, render.split(), signal=(signal.SIGINT, 2.5), gone=("out.png", "out.json", "out.mask.png")),
        Case("G02", g, render.split(), signal=(signal.SIGTERM, 2.5), gone=("out.png", "out.json", "out.mask.png")),
        Case("G03", g, render.split(), signal=(signal.SIGINT, 3.5), gone=("out.png", "out.json", "out.mask.png")),
        Case("G04", g, pixel.split(), signal=(signal.SIGINT, 2.0), gone=("out",)),
        Case("G05", g, pixel.split(), signal=(signal.SIGTERM, 2.0), gone=("out",)),
        Case("G06", g, export.split(), signal=(signal.SIGINT, 1.5), gone=("out",)),
        Case("G07", g, export.split(), signal=(signal.SIGTERM, 1.5), gone=("out",)),
        Case("G08", g, ["report", "{bench}", "-o", "{d}/site"], signal=(signal.SIGINT, 0.8), gone=("site",)),
        Case("G09", g, ["audit", "{bench}", "-o", "{d}/aud", "--quiet"], signal=(signal.SIGTERM, 2.0), gone=("aud",)),
        Case("G10", g, ["build", "{root}/tiny.yaml", "-o", "{d}/b", "--quiet"], names=("--resume",),
             signal=(signal.SIGINT, 3.0)),
        Case("G11", g, ["spec", "usa", "--stat", "population_2020", "-o", "{d}/s.json"], signal=(signal.SIGINT, 1.2),
             gone=("s.json",)),
        Case("G12", g, ["stats", "synth", "usa", "-o", "{d}/t.csv"], signal=(signal.SIGTERM, 1.0), gone=("t.csv",)),
    ]


def all_cases() -> list[Case]:
    """Every case of the tour, family by family."""
    families = [table_cases, atlas_cases, config_cases, output_cases, pack_cases, style_cases, prediction_cases,
                eval_cases, render_cases, export_cases, misc_cases, signal_cases]
    cases = [case for family in families for case in family()]
    for case in cases:
        case.report = case.args[:2] == ["templates", "lint"]
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return cases



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", action="append", help="Run only this family (repeatable).")
    parser.add_argument("--case", action="append", help="Run only this case id (repeatable).")
    parser.add_argument("--jobs", type=int, default=2, help="Cases run at once (default 2).")
    parser.add_argument("--timeout", type=float, default=60.0, help="Seconds per case (default 60).")
    parser.add_argument("--list", action="store_true", help="List the cases and stop.")
    args = parser.parse_args(argv)
    cases = all_cases()
    if args.family or args.case:  # the cases of any family named, and any case named
        cases = [c for c in cases if c.family in (args.family or ()) or c.id in (args.case or ())]
    if args.list:
        print("\n".join(f"{c.id}\t{c.family}\tmapgen {command_text(c)}" for c in cases))
        return 0
    if not cases:
        parser.error("no case matches --family/--case")
    start = time.perf_counter()
    rows = run_tour(cases, jobs=args.jobs, timeout=args.timeout)
    print(table(rows))
    print(f"\n{len(rows)} cases in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
