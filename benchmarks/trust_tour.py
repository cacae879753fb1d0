"""Trust tour (issue 37, "Done when"): at least 100 fresh cases, none of them in issue 37's list or in
`fault_tour.py`, run as a hostile sender would: benchmark folders edited by hand and re-signed, packs and prompt
strategies that misbehave, model replies in every shape, output folders that already hold something, processes
killed mid-run, inputs built to exhaust memory.

Each case runs the real CLI in a fresh folder (the machinery and the verdicts of `fault_tour.py`), and may carry a
**guard** that runs whatever the exit status and names a harm: ``unsafe`` (a script can run in a page mapgen
wrote, a byte of a file outside the folders named reaches an output), ``data loss`` (something the user had is
gone or mixed with another run), ``silent`` (a score or an answer is wrong with exit 0). Verdicts are those of the
fault tour plus ``unsafe`` and ``data loss``.

Run on demand (minutes; not part of the test suite)::

    python benchmarks/trust_tour.py [--family replies] [--case R01] [--jobs 2] [--timeout 90]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fault_tour  # noqa: E402
from fault_tour import (  # noqa: E402
    DEFS,
    TINY_CONFIG,
    Artefacts,
    Case,
    Row,
    _launch,
    classify,
    either,
    err,
    make_artefacts,
    mapgen,
    ok,
    pack,
    restore,
    snapshot,
    table,
    template,
)
from fault_tour import error_lines as _fault_error_lines  # noqa: E402

Guard = Callable[[Path, str, str], "str | None"]  # (case folder, stdout, stderr) → "unsafe: …" / "data loss: …" / …
VERDICTS = ("clear", "handled", "vague", "unsafe", "data loss", "silent", "hang", "left behind", "traceback",
            "tour error")
SECRET = "TOPSECRET-7f3a9c"
PAYLOAD = "<img src=x onerror=\"document.title='PWNED'\">"
SCRIPT = "\"><script>document.title='PWNED'</script>"
RICH_CONFIG = """name: trust-rich
seed: 5
countries:
  - {name: usa, maps: 2}
counterfactual: {country: usa, maps: 0}
questions: {per_image: 14}
split: {ratios: {train: 0.5, test: 0.5}}
"""
#: The line mapgen prints before it runs a pack's Python code (#37 item 4): an announcement, not an error line.
ANNOUNCEMENT = "mapgen: running the Python code of template pack"
RICH: dict[str, Any] = {}
#: Cases whose setup starts another run that writes into the case folder (its output is not the refusal's).
WRITES_ALONGSIDE = frozenset({"O10"})


def _error_lines(stderr: str) -> list[str]:
    """The fault tour's error lines without the pack-code announcement (#37 item 4 asks for it: not an error)."""
    return [line for line in _fault_error_lines(stderr) if not line.startswith(ANNOUNCEMENT)]


fault_tour.error_lines = _error_lines  # filled by prepare(): the rich benchmark's folder and its questions


@dataclass
class Tour:
    case: Case
    guard: Guard | None = None


# ------------------------------------------------------------------------------------------------ artefacts


def prepare(root: Path) -> Artefacts:
    """The fault tour's artefacts plus a richer benchmark (every answer type) with its plain-gold score."""
    art = make_artefacts(root)
    (root / "rich.yaml").write_text(RICH_CONFIG, encoding="utf-8")
    done = mapgen("build", str(root / "rich.yaml"), "-o", str(root / "rich"), "--quiet")
    if done.returncode != 0:
        raise SystemExit(f"rich build failed:\n{done.stderr}")
    questions = [json.loads(line) for line in (root / "rich" / "questions.jsonl").read_text().splitlines() if line]
    RICH.update(root=root / "rich", questions=questions)
    gold = root / "gold.jsonl"
    gold.write_text("".join(json.dumps({"question_id": q["question_id"], "prediction": plain(q)}) + "\n"
                            for q in questions), encoding="utf-8")
    done = mapgen("eval", str(root / "rich"), "--predictions", str(gold), "-o", str(root / "gold-eval"), "--no-plots")
    if done.returncode != 0:
        raise SystemExit(f"gold eval failed:\n{done.stderr}")
    RICH["score"] = json.loads((root / "gold-eval" / "summary.json").read_text())["score"]
    return art


def plain(question: dict[str, Any]) -> str:
    """The gold answer as a model would write it in plain text."""
    answer = question["answer"]
    return ", ".join(map(str, answer)) if isinstance(answer, list) else str(answer)


def resign(root: Path) -> None:
    """Write the manifest's checksums anew for every file it lists that exists (a hostile sender's step)."""
    from mapgen.files import sha256_file

    path = root / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["files"] = {rel: sha256_file(root / rel) for rel in manifest["files"] if (root / rel).is_file()}
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True))


def edit_jsonl(root: Path, name: str, edit: Callable[[dict[str, Any]], None], first: int | None = None) -> None:
    path = root / name
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for record in records[:first]:
        edit(record)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def hostile(edit: Callable[[Path, Path], None], rich: bool = False) -> Callable[[Path, Artefacts], None]:
    """Setup: copy a benchmark into the case folder as ``bench``, write ``secret.txt`` beside it, apply ``edit``
    (bench, case folder) and re-sign the manifest."""
    def setup(d: Path, art: Artefacts) -> None:
        shutil.copytree(RICH["root"] if rich else art.bench, d / "bench")
        (d / "secret.txt").write_text(SECRET + "\n")
        edit(d / "bench", d)
        resign(d / "bench")
    return setup


def set_field(name: str, key: str, value: Any, first: int | None = None) -> Callable[[Path, Path], None]:
    def edit(bench: Path, d: Path) -> None:
        edit_jsonl(bench, name, lambda r: r.__setitem__(key, value), first)
    return edit


# ------------------------------------------------------------------------------------------------ guards


def no_secret(*skip: str) -> Guard:
    """No file the run wrote holds the secret's bytes, and none is a hard link to the secret."""
    def guard(d: Path, out: str, err: str) -> str | None:
        secret = d / "secret.txt"
        inode = secret.stat().st_ino if secret.exists() else None
        if SECRET in out + err:
            return "unsafe: the secret's text is in the command's output"
        for path in d.rglob("*"):
            rel = path.relative_to(d)
            if path == secret or rel.parts[0] in ("bench", *skip) or not path.is_file() or path.is_symlink():
                continue
            if inode is not None and path.stat().st_ino == inode:
                return f"unsafe: {rel} is a hard link to the secret"
            if SECRET.encode() in path.read_bytes():
                return f"unsafe: {rel} holds the secret's bytes"
        return None
    return guard


def no_script(site: str = "site") -> Guard:
    """Every page of the site forbids inline scripts by its Content-Security-Policy, and no payload runs when
    Chromium loads it."""
    def guard(d: Path, out: str, err: str) -> str | None:
        pages = sorted((d / site).rglob("*.html")) if (d / site).is_dir() else []
        for page in pages:
            html = page.read_text(encoding="utf-8", errors="replace")
            csp = re.search(r"http-equiv=[\"']Content-Security-Policy[\"'][^>]*content=[\"']([^\"']*)", html, re.I)
            if csp is None or "unsafe-inline" in csp.group(1).split("script-src", 1)[-1].split(";")[0]:
                return f"unsafe: {page.relative_to(d)} has no Content-Security-Policy forbidding inline scripts"
            if re.search(r"<title>\s*PWNED\s*</title>", dump_dom(page)):  # set by a payload; shown as text it is inert
                return f"unsafe: a payload ran in {page.relative_to(d)}"
        return None
    return guard


def dump_dom(page: Path) -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return ""
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=60, check=False)
    return done.stdout


def kept(name: str, text: str) -> Guard:
    """The user's file ``name`` still holds ``text``."""
    def guard(d: Path, out: str, err: str) -> str | None:
        path = d / name
        if not path.is_file() or path.read_text(errors="replace") != text:
            return f"data loss: {name} is gone or changed"
        return None
    return guard


def bench_intact() -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        if (d / "bench").is_dir() and snapshot(d / "bench") != snapshot(RICH["root"].parent / "bench.pristine"):
            return "data loss: the benchmark folder was changed"
        return None
    return guard


def no_stale(folder: str, stale: str) -> Guard:
    """After a forced re-run into ``folder``, the old run's ``stale`` file is gone (no mixed folder)."""
    def guard(d: Path, out: str, err: str) -> str | None:
        if (d / folder / stale).exists():
            return f"data loss: {folder}/{stale} from the older run sits beside the new output"
        return None
    return guard


def score_is(expected: Callable[[], float], unparsed: Callable[[], int] | None = None,
             summary: str = "out/summary.json") -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        path = d / summary
        if not path.is_file():
            return None  # a refusal: the verdict is the refusal's
        data = json.loads(path.read_text())
        want = expected()
        if abs(float(data["score"]) - want) > 1e-6:
            return f"silent: score {data['score']} where {want:.4f} is right"
        found = data.get("unparsed", data.get("counts", {}).get("unparsed"))
        found = None if found is None else int(found) + int(data.get("missing") or 0)  # a null reply is missing
        if unparsed is not None and found is not None and found != unparsed():
            return f"silent: {found} unparsed where {unparsed()} is right"
        return None
    return guard


def short_error(limit: int = 2500) -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        size = len(out) + len(err)
        return f"silent: an error report of {size:,} characters" if size > limit else None
    return guard


def both(*guards: Guard) -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        return next((p for g in guards if (p := g(d, out, err)) is not None), None)
    return guard


# ------------------------------------------------------------------------------------------------ cases


def hostile_site_cases() -> list[Tour]:
    h = "site"
    report = "report {d}/bench -o {d}/site"

    def case(cid: str, edit: Callable[[Path, Path], None], args: str = report, rich: bool = False) -> Tour:
        return Tour(either(cid, h, args, ("bench",), ("manifest", "give", "fix", "remove", "rebuild"),
                           setup=hostile(edit, rich)), no_script())

    def qfield(key: str, value: Any) -> Callable[[Path, Path], None]:
        return set_field("questions.jsonl", key, value)

    def caption(bench: Path, d: Path) -> None:
        edit_jsonl(bench, "captions.jsonl", lambda r: r.update({k: PAYLOAD for k, v in r.items()
                                                                  if isinstance(v, str) and k not in
                                                                  ("image", "map_id", "caption_id")}))

    def grounding_text(bench: Path, d: Path) -> None:
        edit_jsonl(bench, "grounding.jsonl", lambda r: r.update({k: PAYLOAD for k, v in r.items()
                                                                   if isinstance(v, str) and k not in
                                                                   ("image", "map_id", "grounding_id")}))

    def rename_image(bench: Path, d: Path) -> None:
        old = "maps/usa-0000-annotated.png"
        new = "maps/usa-0000-\"><img src=x onerror=alert(1)>.png"
        (bench / old).rename(bench / new)
        manifest = json.loads((bench / "manifest.json").read_text())
        manifest["files"][new] = manifest["files"].pop(old)
        (bench / "manifest.json").write_text(json.dumps(manifest))
        for name in ("maps.jsonl", "questions.jsonl", "captions.jsonl", "grounding.jsonl"):
            edit_jsonl(bench, name, lambda r: r.update(image=new) if r.get("image") == old else None)

    def eval_field(key: str) -> Callable[[Path, Path], None]:
        def edit(bench: Path, d: Path) -> None:
            done = mapgen("eval", str(bench), "--baseline", "random", "-o", str(d / "ev"), "--no-plots")
            assert done.returncode == 0, done.stderr
            summary = json.loads((d / "ev" / "summary.json").read_text())
            summary[key] = PAYLOAD
            (d / "ev" / "summary.json").write_text(json.dumps(summary))
        return edit

    def eval_tables(bench: Path, d: Path) -> None:
        eval_field("source")(bench, d)
        with open(d / "ev" / "tables.md", "a") as f:
            f.write(f"\n| {PAYLOAD} | 1 |\n{SCRIPT}\n")
        with open(d / "ev" / "scores.csv", "a") as f:
            f.write(f"{PAYLOAD},1\n")

    with_eval = report + " --eval {d}/ev"
    return [
        case("H01", qfield("answer", PAYLOAD)),
        case("H02", qfield("accepted_answers", {PAYLOAD: [SCRIPT]})),
        case("H03", qfield("template_id", PAYLOAD)),
        case("H04", qfield("params", {"X": PAYLOAD})),
        case("H05", qfield("program", [{"call": PAYLOAD, "result": SCRIPT, "step": "answer"}])),
        case("H06", qfield("tags", [PAYLOAD, SCRIPT])),
        case("H07", caption),
        case("H08", grounding_text),
        case("H09", set_field("grounding.jsonl", "unique", PAYLOAD)),
        case("H10", set_field("maps.jsonl", "statistic", PAYLOAD)),
        case("H11", set_field("maps.jsonl", "variant", SCRIPT)),
        case("H12", set_field("maps.jsonl", "country", PAYLOAD)),
        case("H13", qfield("split", SCRIPT)),
        case("H14", qfield("mapwise_template", PAYLOAD)),
        case("H15", eval_field("source"), with_eval),
        case("H16", eval_tables, with_eval),
        case("H17", lambda b, d: None, report + " --title " + json.dumps(SCRIPT)),
        case("H18", rename_image),
        case("H19", qfield("difficulty", {"classes_read": PAYLOAD})),
        case("H20", set_field("maps.jsonl", "map_type", PAYLOAD)),
    ]


def path_cases() -> list[Tour]:
    p = "paths"
    names, fixes = (), ("inside", "benchmark", "folder", "remove", "rebuild", "manifest", "give", "fix")

    def outside(name: str, key: str, value: Callable[[Path], str], first: int | None = 1) -> Callable[[Path, Path], None]:
        def edit(bench: Path, d: Path) -> None:
            edit_jsonl(bench, name, lambda r: r.__setitem__(key, value(d)), first)
        return edit

    def link_image(bench: Path, d: Path) -> None:
        target = bench / "maps" / "usa-0000-annotated.png"
        target.unlink()
        target.symlink_to(d / "secret.txt")

    def manifest_key(key: Callable[[Path], str]) -> Callable[[Path, Path], None]:
        def edit(bench: Path, d: Path) -> None:
            from mapgen.files import sha256_file
            manifest = json.loads((bench / "manifest.json").read_text())
            manifest["files"][key(d)] = sha256_file(d / "secret.txt")
            (bench / "manifest.json").write_text(json.dumps(manifest))
        return edit

    rel = lambda d: "../secret.txt"  # noqa: E731
    absolute = lambda d: str(d / "secret.txt")  # noqa: E731
    dotted = lambda d: "maps/../../secret.txt"  # noqa: E731

    def case(cid: str, args: str, edit: Callable[[Path, Path], None], skip: tuple[str, ...] = ()) -> Tour:
        return Tour(err(cid, p, args, names, fixes, setup=hostile(edit)), no_secret(*skip))

    export = "export {d}/bench -o {d}/out --format "

    def keyfn(d: Path) -> str:
        return "../secret.txt"

    return [
        case("P01", export + "jsonl", outside("maps.jsonl", "image", absolute)),
        case("P02", export + "hf", outside("maps.jsonl", "image", absolute)),
        case("P03", export + "llava", outside("maps.jsonl", "image", rel)),
        case("P04", export + "vlmevalkit --split train", outside("maps.jsonl", "image", rel, None)),
        case("P05", export + "lmms-eval --split train", outside("maps.jsonl", "image", rel, None)),
        case("P06", export + "croissant", outside("maps.jsonl", "image", rel)),
        case("P07", "report {d}/bench -o {d}/site", outside("maps.jsonl", "image", rel)),
        case("P08", export + "jsonl", outside("questions.jsonl", "image", rel)),
        case("P09", export + "jsonl", link_image),
        case("P10", export + "hf", link_image),
        case("P11", "report {d}/bench -o {d}/site", link_image),
        case("P12", export + "llava", outside("grounding.jsonl", "image", rel)),
        case("P13", "eval {d}/bench --baseline pixel -o {d}/out --no-plots", outside("maps.jsonl", "image", rel, None)),
        case("P14", "audit {d}/bench -o {d}/out --quiet", outside("maps.jsonl", "image", rel, None)),
        case("P15", "info {d}/bench", manifest_key(keyfn)),
        case("P16", export + "jsonl", manifest_key(absolute)),
        case("P17", export + "jsonl", outside("maps.jsonl", "image", dotted)),
        case("P18", export + "mapwise", outside("maps.jsonl", "image", rel, None)),
        case("P19", "eval {d}/bench --baseline random -o {d}/out --no-plots", link_image),
        case("P20", export + "vlmevalkit --split train", link_image),
    ]


def manifest_cases() -> list[Tour]:
    m = "manifest"
    fixes = ("rebuild", "manifest", "give", "restore", "fix", "remove", "list")
    ev = "eval {d}/bench --baseline random -o {d}/out --no-plots"

    def manifest(edit: Callable[[dict[str, Any]], Any]) -> Callable[[Path, Artefacts], None]:
        def setup(d: Path, art: Artefacts) -> None:
            shutil.copytree(art.bench, d / "bench")
            edit_jsonl(d / "bench", "questions.jsonl", lambda r: r.update(answer="forged"))
            path = d / "bench" / "manifest.json"
            data = json.loads(path.read_text())
            result = edit(data)
            path.write_text(result if isinstance(result, str) else json.dumps(data))
        return setup

    def only(*keep: str) -> Callable[[dict[str, Any]], None]:
        return lambda m: m.__setitem__("files", {k: v for k, v in m["files"].items() if k in keep})

    def forged_score() -> Guard:
        def guard(d: Path, out: str, err: str) -> str | None:
            path = d / "out" / "summary.json"
            return "silent: a forged benchmark was scored" if path.is_file() else None
        return guard

    def case(cid: str, edit: Callable[[dict[str, Any]], Any], args: str = ev) -> Tour:
        return Tour(err(cid, m, args, ("bench",), fixes, setup=manifest(edit)), forged_score())

    return [
        case("M01", only("maps.jsonl")),
        case("M02", lambda m: m.pop("files")),
        case("M03", lambda m: m.__setitem__("files", list(m["files"]))),
        case("M04", lambda m: "{\"files\": "),
        case("M05", only("questions.jsonl", "maps.jsonl")),  # questions listed with its old hash: refused
        case("M06", lambda m: m.__setitem__("files", {k: v.upper() for k, v in m["files"].items()})),
        case("M07", lambda m: m.__setitem__("files", {**m["files"], **{f"junk/{i}.png": "0" * 64
                                                                         for i in range(50_000)}})),
        case("M08", lambda m: m.__setitem__("files", None)),
        case("M09", only(*[]), "export {d}/bench -o {d}/out --format jsonl"),
        case("M10", only("maps.jsonl", "captions.jsonl"), "report {d}/bench -o {d}/out"),
    ]


def predictions_setup(make: Callable[[dict[str, Any]], Any], name: str = "p.jsonl",
                      raw: Callable[[list[dict[str, Any]]], bytes] | None = None) -> Callable[[Path, Artefacts], None]:
    def setup(d: Path, art: Artefacts) -> None:
        questions = RICH["questions"]
        if raw is not None:
            data = raw(questions)
        else:
            data = "".join(json.dumps({"question_id": q["question_id"], "prediction": make(q)}) + "\n"
                           for q in questions).encode()
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_bytes(data)
    return setup


def reply_cases() -> list[Tour]:
    r = "replies"
    ev = "eval " + "{rich} --predictions {d}/p.jsonl -o {d}/out --no-plots"
    gold = lambda: RICH["score"]  # noqa: E731
    n = lambda: len(RICH["questions"])  # noqa: E731
    zero = lambda: 0  # noqa: E731

    def wrong(q: dict[str, Any]) -> str:
        return {"binary": "No" if plain(q) == "Yes" else "Yes"}.get(q["answer_type"], "Hawaii")

    def case(cid: str, make: Callable[[dict[str, Any]], Any], expected: Callable[[], float] = gold,
             unparsed: Callable[[], int] | None = zero, **kw: Any) -> Tour:
        return Tour(either(cid, r, ev, ("p.jsonl",), ("give", "line", "fix", "remove", "write"),
                           setup=predictions_setup(make, **kw)), score_is(expected, unparsed))

    def score_zero() -> float:
        return 0.0

    return [
        case("R01", lambda q: f"**{plain(q)}**"),
        case("R02", lambda q: f"Looking at the legend and the colours, the final answer is: {plain(q)}"),
        case("R03", lambda q: f"<think>At first I thought {wrong(q)}, but checking the legend again...</think>\n"
                              f"{json.dumps({'answer': q['answer']})}"),
        case("R04", lambda q: "```json\n" + json.dumps({"answer": q["answer"]}, indent=2) + "\n```"),
        case("R05", lambda q: f"$$\\boxed{{\\text{{{plain(q)}}}}}$$"),
        case("R06", lambda q: f"Answer: {plain(q)}\n\nExplanation: the colour of each region matches the legend."),
        case("R07", lambda q: f"<answer>\n  {plain(q)}\n</answer>"),
        case("R08", lambda q: json.dumps({"answer": q["answer"], "confidence": 0.9, "reasoning": "legend"})),
        case("R09", lambda q: "I cannot determine this from the map.", score_zero, n),
        case("R10", lambda q: "", score_zero, n),
        case("R11", lambda q: "It could be Yes or it could be No." if q["answer_type"] == "binary" else plain(q),
             lambda: RICH["score_without_binary"], lambda: RICH["binary"]),
        case("R12", lambda q: None, score_zero, n),
        case("R13", lambda q: int(q["answer"]) if q["answer_type"] == "count" else q["answer"]),
        case("R14", lambda q: plain(q), raw=lambda qs: "".join(
            json.dumps({"question_id": q["question_id"], "prediction": a}) + "\n"
            for q in qs for a in (plain(q), wrong(q))).encode()),
        case("R15", lambda q: plain(q), raw=lambda qs: "".join(
            json.dumps({"question_id": q["question_id"] + "-x", "prediction": plain(q)}) + "\n" for q in qs).encode()),
        case("R16", lambda q: "Let me look carefully. " * 40_000 + f"Final answer: {plain(q)}"),
        case("R17", lambda q: f"答案是：{plain(q)}"),
        case("R18", lambda q: plain(q), raw=lambda qs: b"\xef\xbb\xbf" + "".join(
            json.dumps({"question_id": q["question_id"], "prediction": plain(q)}) + "\r\n" for q in qs).encode()),
        case("R19", lambda q: f"Not {plain(q)}." if q["answer_type"] in ("single", "binary") else plain(q),
             lambda: RICH["score_without_single_binary"], None),
        case("R20", lambda q: f"### Answer\n\n{plain(q)}"),
        case("R21", lambda q: f"{wrong(q)}? No wait. {plain(q)}" if q["answer_type"] == "single" else plain(q),
             lambda: RICH["score_without_single"], None),
    ]


def pack_cases() -> list[Tour]:
    k = "packs"
    lint = "templates lint {d}/pack"
    fixes = ("pack", "functions.py", "remove", "rename", "give", "fix", "budget", "faster", "only", "stderr")

    def good(functions: str, program: str = "      - answer: compare(X, 'higher', Y)",
             answer_type: str = "binary") -> dict[str, str | bytes]:
        files = pack("templates:\n" + template(program=program, answer_type=answer_type), DEFS)
        files["pack/functions.py"] = functions
        return files

    header = "from mapgen.questions import register\n"
    preview = "templates preview my_t --templates {d}/pack --map {map}"
    questions = "questions {map} --templates {d}/pack"

    def clean_stdout() -> Guard:
        def guard(d: Path, out: str, err: str) -> str | None:
            for line in out.splitlines():
                try:
                    json.loads(line)
                except ValueError:
                    return f"silent: stdout JSONL holds a line that is no JSON: {line[:60]!r}"
            return None
        return guard

    return [
        Tour(err("K01", k, lint, ("compare",), fixes, report=True, files=good(
            "import dataclasses\nfrom mapgen.questions import FUNCTIONS\n"
            "FUNCTIONS['compare'] = dataclasses.replace(FUNCTIONS['compare'], fn=lambda *a: True)\n"))),
        Tour(either("K02", k, lint, ("functions.py",), fixes, files=good(
            "open(__file__ + '.ran', 'w').write('x')\n"), check=lambda d, out: None if "functions.py" in out
            else "pack code ran without a word")),
        Tour(err("K03", k, lint, ("functions.py",), fixes, report=True, files=good("while True:\n    pass\n"))),
        Tour(err("K04", k, preview, ("slow",), fixes, files=good(
            header + "import time\n@register('Region Region', 'Bool')\ndef slow(scene, a, b):\n"
            "    time.sleep(1000)\n    return True\n", program="      - answer: slow(X, Y)"))),
        Tour(err("K05", k, lint, ("functions.py",), fixes + ("line",), report=True, files=good("def broken(:\n"))),
        Tour(err("K06", k, lint, ("no_such_module",), fixes + ("install",), report=True, files=good("import no_such_module\n"))),
        Tour(err("K07", k, preview, ("boom",), fixes, files=good(
            header + "@register('Region Region', 'Bool')\ndef boom(scene, a, b):\n"
            "    raise KeyError('x')\n", program="      - answer: boom(X, Y)"))),
        Tour(err("K08", k, preview, ("leave",), fixes, files=good(
            header + "@register('Region Region', 'Bool')\ndef leave(scene, a, b):\n"
            "    raise SystemExit(3)\n", program="      - answer: leave(X, Y)"))),
        Tour(either("K09", k, questions, ("functions.py",), fixes, files=good(
            "print('hello from the pack')\n")), clean_stdout()),
        Tour(err("K10", k, lint, ("templates.yaml",), ("alias", "anchor", "nest", "large", "remove", "give"), report=True,
                 files={"pack/templates.yaml": "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
                     f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
                     f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
                     f"*{chr(97 + i)}]\n" for i in range(9)) + "templates: *j\n"})),
        Tour(err("K11", k, lint, ("templates.yaml",), ("nest", "deep", "remove", "give", "depth"), report=True,
                 files={"pack/templates.yaml": "templates: " + "[" * 50_000 + "]" * 50_000 + "\n"})),
        Tour(err("K12", k, preview, ("nan_fn",), fixes + ("number", "finite"), files=good(
            header + "@register('Region Region', 'Int')\ndef nan_fn(scene, a, b):\n"
            "    return float('nan')\n", program="      - answer: nan_fn(X, Y)", answer_type="count"))),
        Tour(err("K13", k, lint, ("functions.py",), fixes, report=True, files=good("import os\nos._exit(0)\n"))),
        Tour(err("K14", k, lint, ("functions.py",), fixes, report=True, files=good("import sys\nsys.exit(0)\n"))),
    ]


def prompt_cases() -> list[Tour]:
    f = "prompts"
    fixes = ("inside", "folder", "remove", "give", "budget", "fix", "define", "write", "at most")
    cmd = "prompt {bench} --question {qid} --prompt {d}/pr/p.yaml"

    def prompt(text: str = "{{ question }}", extra: str = "") -> dict[str, str | bytes]:
        return {"pr/p.yaml": f"name: p\ndescription: tour\ntext: |-\n  {text}\n{extra}", "secret.txt": SECRET}

    def linked(d: Path, art: Artefacts) -> None:
        (d / "pr" / "ex.png").symlink_to(d / "secret.txt")

    return [
        Tour(err("F01", f, cmd, ("example_images",), fixes, files=prompt(extra="example_images: [{secret}]\n")),
             no_secret()),
        Tour(err("F02", f, cmd, ("ex.png",), fixes, files=prompt(extra="example_images: [ex.png]\n"), setup=linked),
             no_secret()),
        Tour(err("F03", f, cmd, ("p.yaml",), fixes + ("loop", "work"), files=prompt(
            "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"))),
        Tour(err("F04", f, cmd, ("p.yaml",), fixes + ("sandbox", "unsafe", "attribute"), files=prompt(
            "{{ ''.__class__.__mro__[1].__subclasses__() }}"))),
        Tour(err("F05", f, cmd, ("p.yaml",), ("alias", "anchor", "large", "remove", "give"), files={
            "pr/p.yaml": "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
                f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
                for i in range(9)) + "name: p\ntext: '{{ question }}'\n"})),
        Tour(err("F06", f, cmd, ("no_such_var",), fixes, files=prompt("{{ question }} {{ no_such_var.x }}"))),
    ]


def folder_cases() -> list[Tour]:
    o = "folders"
    fixes = ("--force", "empty", "another", "new", "give", "remove", "choose", "outside")
    note = "my notes, keep them\n"
    ev = "eval {bench} --baseline random -o {d}/out --no-plots"

    def concurrent(args: list[str]) -> Callable[[Path, Artefacts], None]:
        def setup(d: Path, art: Artefacts) -> None:
            proc = subprocess.Popen([sys.executable, "-m", "mapgen", *[art.fill(a, d) for a in args]],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            BACKGROUND[str(d)] = proc
            time.sleep(0.3)
        return setup

    def one_wins() -> Guard:
        def guard(d: Path, out: str, err: str) -> str | None:
            proc = BACKGROUND.pop(str(d), None)
            if proc is None:
                return None
            proc.wait(timeout=120)
            summary = d / "out" / "summary.json"
            if proc.returncode == 0 and "Error" not in err and summary.is_file():
                seeds = json.loads(summary.read_text()).get("seed")
                return f"data loss: both runs into one folder exited 0 (the folder holds seed {seeds})"
            return None
        return guard

    def old_eval(d: Path, art: Artefacts) -> None:
        shutil.copytree(art.eval, d / "out")
        (d / "out" / "plots").mkdir(exist_ok=True)
        (d / "out" / "plots" / "old-plot.png").write_bytes(b"old")

    def old_site(d: Path, art: Artefacts) -> None:
        (d / "site").mkdir()
        (d / "site" / "old-page.html").write_text("<p>old</p>")
        (d / "site" / "index.html").write_text("<p>old</p>")

    user_file = {"out/notes.txt": note}
    return [
        Tour(err("O01", o, ev, ("out",), fixes, files=user_file), kept("out/notes.txt", note)),
        Tour(err("O02", o, "report {bench} -o {d}/out", ("out",), fixes, files=user_file),
             kept("out/notes.txt", note)),
        Tour(err("O03", o, "audit {bench} -o {d}/out --quiet", ("out",), fixes, files=user_file),
             kept("out/notes.txt", note)),
        Tour(err("O04", o, "counterfactual {bench} -o {d}/out --kind imaginary", ("out",), fixes, files=user_file),
             kept("out/notes.txt", note)),
        Tour(err("O05", o, "eval {d}/bench --baseline random -o {d}/bench --no-plots", ("bench",), fixes,
                 setup=lambda d, art: shutil.copytree(art.bench, d / "bench")), bench_unchanged()),
        Tour(err("O06", o, "report {d}/bench -o {d}/bench/site", ("bench",), fixes,
                 setup=lambda d, art: shutil.copytree(art.bench, d / "bench")), bench_unchanged()),
        Tour(err("O07", o, "eval {bench} --predictions {d}/out/p.jsonl -o {d}/out --no-plots", ("out",), fixes,
                 setup=predictions_setup(lambda q: "x", name="out/p.jsonl")), kept_nonempty("out/p.jsonl")),
        Tour(ok("O08", o, ev + " --force", setup=old_eval), no_stale("out", "plots/old-plot.png")),
        Tour(ok("O09", o, "report {bench} -o {d}/site --force", setup=old_site), no_stale("site", "old-page.html")),
        Tour(either("O10", o, ev + " --seed 2", ("out",), fixes + ("lock", "running", "busy"),
                 setup=concurrent(["eval", "{bench}", "--baseline", "random", "-o", "{d}/out", "--seed", "1"])),
             one_wins()),
        Tour(err("O11", o, "export {bench} -o {d}/out.txt --format jsonl", ("out.txt",), fixes + ("file", "folder"),
                 files={"out.txt": note}), kept("out.txt", note)),
        Tour(err("O12", o, ev.replace("{d}/out", "{d}/out.txt"), ("out.txt",), fixes + ("file", "folder"),
                 files={"out.txt": note}), kept("out.txt", note)),
        Tour(err("O13", o, "audit {d}/bench -o {d}/bench --quiet", ("bench",), fixes,
                 setup=lambda d, art: shutil.copytree(art.bench, d / "bench")), bench_unchanged()),
        Tour(err("O14", o, "build {d}/c.yaml -o {d}/out --quiet", ("out",), fixes,
                 files={"c.yaml": TINY_CONFIG, **user_file}), kept("out/notes.txt", note)),
    ]


BACKGROUND: dict[str, subprocess.Popen] = {}


def bench_unchanged() -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        bench = d / "bench"
        pristine = RICH["root"].parent / "bench.pristine"
        if bench.is_dir() and snapshot(bench) != snapshot(pristine):
            return "data loss: the benchmark folder was changed"
        return None
    return guard


def kept_nonempty(name: str) -> Guard:
    def guard(d: Path, out: str, err: str) -> str | None:
        path = d / name
        return None if path.is_file() and path.stat().st_size > 0 else f"data loss: {name} is gone"
    return guard


def signal_cases() -> list[Tour]:
    s = "signals"
    kill = int(signal.SIGKILL)

    def reader_refuses(folder: str, reader: list[str]) -> Guard:
        """After the kill, nothing a reader accepts is left at ``folder`` unless it is complete."""
        def guard(d: Path, out: str, err: str) -> str | None:
            path = d / folder
            if not path.exists():
                return None
            argv = [a.replace("{d}", str(d)).replace("{rich}", str(RICH["root"])) for a in reader]
            done = mapgen(*argv)
            if done.returncode == 0 and not complete(path):
                return f"left behind: a reader accepts the unfinished {folder}"
            return None
        return guard

    def case(cid: str, args: str, folder: str, reader: list[str], at: float, sig: int = kill) -> Tour:
        c = Case(cid, s, args.split(), names=(), signal=(sig, at), gone=(folder,))
        return Tour(c, reader_refuses(folder, reader))

    site_reader = ["report", "{rich}", "-o", "{d}/site2", "--eval", "{d}/out"]
    return [
        case("S01", "eval {rich} --baseline random -o {d}/out", "out", site_reader, 1.5),
        case("S02", "report {rich} -o {d}/out", "out", ["info", "{d}/out"], 1.2),
        case("S03", "audit {rich} -o {d}/out --quiet", "out", ["report", "{rich}", "-o", "{d}/s", "--audit", "{d}/out"],
             2.5),
        case("S04", "export {rich} -o {d}/out --format hf", "out", ["info", "{d}/out"], 2.5),
        case("S05", "export {rich} -o {d}/out --format llava", "out", ["info", "{d}/out"], 1.8),
        case("S06", "counterfactual {rich} -o {d}/out --kind imaginary", "out", ["info", "{d}/out"], 2.5),
        case("S07", "eval {rich} --baseline random -o {d}/out", "out", site_reader, 1.5, int(signal.SIGTERM)),
        case("S08", "report {rich} -o {d}/out", "out", ["info", "{d}/out"], 1.0, int(signal.SIGINT)),
    ]


def complete(path: Path) -> bool:
    return (path / "summary.json").is_file() or (path / "index.html").is_file() or (path / "manifest.json").is_file()


def budget_cases() -> list[Tour]:
    y = "budgets"
    fixes = ("alias", "anchor", "nest", "deep", "large", "columns", "remove", "give", "at most", "split", "valid",
             "needs", "write", "keep")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9))
    render = "render usa --stat population_2020 -o {d}/m.png --style {d}/s.yaml"
    wide = "region," + ",".join(f"c{i}" for i in range(300_000)) + "\nTexas," + ",".join("1" for _ in range(300_000))
    long_rows = "region,value\n" + "Texas,1\n" * 500_000
    huge_cell = "region,value\nTexas," + "9" * 20_000_000 + "\nOhio,2\n"
    return [
        Tour(err("Y01", y, render, ("s.yaml",), fixes, files={"s.yaml": bomb + "description: x\n"})),
        Tour(err("Y02", y, render, ("s.yaml",), fixes, files={"s.yaml": "page: " + "{a: " * 30_000 + "1" + "}" * 30_000})),
        Tour(err("Y03", y, "atlas show {d}/g.geojson", ("groups",), fixes,
                 setup=lambda d, art: (shutil.copy(art.grid, d / "g.geojson"),
                                       (d / "g.groups.yaml").write_text(bomb + "groups: *j\n")))),
        Tour(err("Y04", y, "build {d}/c.yaml -o {d}/out", ("c.yaml",), fixes,
                 files={"c.yaml": "name: " + "[" * 100_000 + "]" * 100_000 + "\n"})),
        Tour(err("Y05", y, "render usa --data {d}/t.csv -o {d}/m.png", ("t.csv",), fixes, files={"t.csv": wide})),
        Tour(err("Y06", y, "render usa --data {d}/t.csv -o {d}/m.png", ("t.csv",), fixes + ("once", "twice", "repeat"),
                 files={"t.csv": long_rows}), short_error()),
        Tour(either("Y07", y, "render usa --data {d}/t.csv -o {d}/m.png", ("t.csv",), fixes + ("large", "digits"),
                    files={"t.csv": huge_cell})),
        Tour(err("Y08", y, "eval {bench} --predictions {d}/p.jsonl -o {d}/out --no-plots", ("p.jsonl",),
                 fixes + ("line", "long"), files={"p.jsonl": json.dumps({"question_id": "x", "prediction": "y" * 60_000_000})}),
             short_error()),
        Tour(err("Y09", y, "build {d}/c.yaml -o {d}/out", ("countries",), fixes, files={"c.yaml": "name: t\ncountries:\n" + "".join(
            "  - {name: usa, maps: 1}\n" for _ in range(20_000))}), short_error()),
        Tour(err("Y10", y, "build {d}/c.yaml -o {d}/out", ("c.yaml",), fixes, files={"c.yaml": bomb + TINY_CONFIG})),
    ]


def all_tours() -> list[Tour]:
    return [*hostile_site_cases(), *path_cases(), *manifest_cases(), *reply_cases(), *pack_cases(),
            *prompt_cases(), *folder_cases(), *signal_cases(), *budget_cases()]


# ------------------------------------------------------------------------------------------------ running


def fill(arg: str, d: Path, art: Artefacts) -> str:
    arg = arg.replace("{rich}", str(RICH["root"])).replace("{secret}", str(d / "secret.txt"))
    return art.fill(arg.replace("{qid}", first_question(art)), d)


def first_question(art: Artefacts) -> str:
    line = (art.bench / "questions.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return str(json.loads(line)["question_id"])


def run_tour_case(tour: Tour, art: Artefacts, timeout: float) -> Row:
    """One case's row; a case whose own setup or guard fails is reported as such (the tour goes on)."""
    try:
        return _run(tour, art, timeout)
    except Exception as exc:  # noqa: BLE001 — a broken case must not stop the tour
        return Row(tour.case, "tour error", f"{type(exc).__name__}: {exc}", 0.0)


def _run(tour: Tour, art: Artefacts, timeout: float) -> Row:
    case = tour.case
    with tempfile.TemporaryDirectory(prefix=f"trust-{case.id}-") as tmp:
        d = Path(tmp)
        for name, content in case.files.items():
            path = d / name
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content if isinstance(content, bytes) else content.replace("{secret}", str(d / "secret.txt"))
            path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        if case.setup is not None:
            case.setup(d, art)
        argv = [sys.executable, "-m", "mapgen", *(fill(a, d, art) for a in case.args)]
        reads_bench = any("{bench}" in a for a in case.args)
        before, bench_before = snapshot(d), snapshot(art.bench) if reads_bench else {}
        start = time.perf_counter()
        code, out, error = _launch(argv, case, timeout)
        seconds = time.perf_counter() - start
        changed = reads_bench and snapshot(art.bench) != bench_before and case.id not in WRITES_ALONGSIDE
        if changed:
            restore(art)
        if (case.expect == "error" or code != 0) and case.id not in WRITES_ALONGSIDE:
            changed = changed or _changed(before, snapshot(d))
        verdict, message = classify(case, code, out, error, d, changed)
        if tour.guard is not None and verdict not in ("hang", "traceback"):
            harm = tour.guard(d, out, error)
            if harm is not None:
                kind, _, why = harm.partition(": ")
                verdict, message = (kind if kind in VERDICTS else "silent"), f"{why} [{message[:120]}]"
        for path in d.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        return Row(case, verdict, message, seconds)


def _changed(before: dict[str, str], after: dict[str, str]) -> bool:
    """Whether the run left something new or changed (a secret and the inputs the case wrote excepted)."""
    return any(after.get(k) != v for k, v in before.items()) or any(k not in before for k in after)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--case", action="append", help="only these case ids (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=90.0)
    args = parser.parse_args(argv)
    wanted = set(args.family or ()) | set(args.case or ())
    tours = [t for t in all_tours() if not wanted or {t.case.family, t.case.id} & wanted]
    with tempfile.TemporaryDirectory(prefix="trust-art-") as tmp:
        art = prepare(Path(tmp))
        derive_expectations()
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            rows = list(pool.map(lambda t: run_tour_case(t, art, args.timeout), tours))
    print(table(rows, VERDICTS))
    return 0 if all(r.verdict in ("clear", "handled") for r in rows) else 1


def derive_expectations() -> None:
    """Scores some reply cases must reach: the plain-gold eval's per-question scores with the questions of some
    answer types counted 0 (those replies are wrong or unparsed by design)."""
    import csv

    with open(RICH["root"].parent / "gold-eval" / "scores.csv", newline="", encoding="utf-8") as f:
        rows = [(r["answer_type"], float(r["main"] or 0.0)) for r in csv.DictReader(f)]

    def without(*types: str) -> float:
        return sum(score for kind, score in rows if kind not in types) / len(rows)

    RICH.update(binary=sum(kind == "binary" for kind, _ in rows), score_without_binary=without("binary"),
                score_without_single=without("single"), score_without_single_binary=without("single", "binary"))


if __name__ == "__main__":
    raise SystemExit(main())
