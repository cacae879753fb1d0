"""Static HTML report of a benchmark: map browser, questions, captions, grounding boxes, eval and audit tables.

``build_site(bench, out_dir, eval_dir=None, audit_dir=None)`` writes::

    site/index.html       the page (open it directly: no server, relative paths only)
    site/worst.html       worst cases of the legibility checks, when ``audit_dir`` is given
                          (:mod:`mapgen.report_site.worst`)
    site/data.js          window.MAPGEN_SITE = {maps: [...]} (a script, so file:// pages can load it)
    site/assets/errors.js the error catcher (loaded first; the headless-browser tests read #site-errors)
    site/assets/app.js    filters (country, variant, template, answer type, text), map detail view: every value
                          from the data becomes a text node or an attribute set through the DOM, never HTML
    site/assets/style.css
    site/maps/*.png       the benchmark images (copied; masks are not)
    site/eval/plots/*.png the eval report's plots, when ``eval_dir`` is given

Per map: its questions with answers (plus the model prediction and score from ``eval_dir/scores.csv``, and the
pixel oracle's answer and failure reasons from ``audit_dir/audit.jsonl``), and each task's view of it
(:meth:`mapgen.tasks.Task.site_view`): captions, grounding boxes drawn over the image as an SVG overlay in image
pixel coordinates, its gold table beside the model's parsed table (each gold row read right, wrong, unreadable or
missing, the reply rows naming no region of the map or repeating one, the reply lines naming a region that gave
the parser no row, the counts, the reply; without ``eval_dir``, the gold tables alone).
"""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment

from mapgen.benchmark import (
    AUDIT_FILE,
    AUDIT_KIND,
    AUDIT_MARKDOWN_FILE,
    EVAL_KIND,
    MAPS_DIR,
    SITE_KIND,
    Benchmark,
    image_rel,
    load_benchmark,
)
from mapgen.files import (
    atomic_folder,
    copy_file,
    read_jsonl,
    refuse_inside,
    require_finished,
    resolves_inside,
    write_text_atomic,
)
from mapgen.human.beside import SOURCES_MD
from mapgen.report_site.worst import worst_cases
from mapgen.resources import template_path
from mapgen.tasks import tasks

ASSETS = ("errors.js", "app.js", "style.css")
CSP = ("default-src 'none'; script-src 'self' file:; style-src 'self' file:; img-src 'self' file:; "
       "base-uri 'none'; form-action 'none'; object-src 'none'")
"""The pages' Content-Security-Policy: scripts and styles from the site's own files only (no inline script, no
inline event handler, no ``javascript:`` URL), images likewise, nothing fetched from elsewhere. ``file:`` beside
``'self'``: a page opened from disk has an opaque origin in some browsers, where ``'self'`` matches nothing (in
Chromium ``'self'`` already matches every ``file:`` URL there, so it adds nothing). The page builds every element
from data through the DOM (``assets/app.js``), so markup inside a record shows as text; the policy is the second
fence."""
WORST_PAGE = "worst.html"


def _cell(value: str | None) -> Any:
    """A scores.csv cell back to a value (JSON lists, numbers; empty or absent → None)."""
    if value is None or value == "":
        return None
    try:
        return json.loads(value)
    except (json.JSONDecodeError, ValueError):
        return value


def eval_scores(eval_dir: Path) -> dict[str, dict[str, Any]]:
    """Prediction (extracted answer) and main score per question id from an eval report folder."""
    path = eval_dir / "scores.csv"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for r in rows:
        score = _cell(r.get("main", ""))
        out[r["question_id"]] = {"pred": _cell(r.get("extracted", "")),
                                 "score": score if isinstance(score, (int, float)) else None}
    return out


def audit_rows(audit_dir: Path) -> dict[str, dict[str, Any]]:
    """Oracle answer, correctness and reasons per question id from an audit folder."""
    try:
        records = read_jsonl(audit_dir / AUDIT_FILE, missing_ok=True)
    except ValueError as exc:  # a line that is no JSON: the folder is not what `mapgen audit` wrote
        raise ValueError(f"{exc}; give the folder `mapgen audit -o` wrote") from None
    return {r["question_id"]: {"oracle": r["oracle_answer"], "oracle_ok": r["oracle_correct"],
                               "reasons": r["reasons"] or r["flags"]}
            for r in records}


def site_maps(bench: Benchmark, scores: dict[str, dict[str, Any]], audit: dict[str, dict[str, Any]],
              eval_dir: Path | None = None) -> list[dict]:
    """One record per map for data.js: its questions, then each task's view (:meth:`~mapgen.tasks.Task.site_view`)."""
    questions = bench.question_records
    maps = bench.maps
    if not maps:  # a questions-only benchmark: one entry per map id seen
        maps = [{"map_id": m, "image": image_rel(m)} for m in dict.fromkeys(q["map_id"] for q in questions)]
    by_q, ids = _by_map(questions), [m["map_id"] for m in maps]
    views = {t.site_field: t.site_view(bench, ids, eval_dir) for t in tasks() if t.site_field}
    out = []
    for m in maps:
        mid = m["map_id"]
        size = _image_size(bench.spec(mid))
        qs = [_question(q, scores.get(q["question_id"]), audit.get(q["question_id"])) for q in by_q.get(mid, [])]
        style = {"style": bench.map_styles[mid]} if mid in bench.map_styles else {}  # builds that draw styles
        out.append({"id": mid, "image": image_rel(mid), "w": size[0], "h": size[1],
                    "country": m.get("country") or (qs[0]["country"] if qs else ""),
                    "variant": m.get("variant") or "", "map_type": m.get("map_type") or "",
                    "split": m.get("split") or "", "title": m.get("title") or mid,
                    "q": qs} | style | {field: view[mid] for field, view in views.items()})
    return out


def _by_map(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        out.setdefault(str(r.get("map_id")), []).append(r)
    return out


def _image_size(map_json: dict[str, Any] | None) -> tuple[int, int]:
    if map_json is not None:
        r = map_json.get("render", {})
        return int(r.get("width", 800)), int(r.get("height", 600))
    return 800, 600


def _question(q: dict[str, Any], score: dict[str, Any] | None, audit: dict[str, Any] | None) -> dict[str, Any]:
    row = {"id": q["question_id"], "t": q["template_id"], "at": q["answer_type"], "text": q["question"],
           "answer": q["answer"], "country": q.get("country")}
    return row | (score or {}) | (audit or {})


# ------------------------------------------------------------------------------------------------ markdown


def markdown_to_html(text: str, plots: dict[str, str] | None = None) -> str:
    """The small Markdown subset the eval and audit reports use: headings, pipe tables, bullets, paragraphs."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if line.startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table_html(block))
            continue
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")) + 1, 6)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
        elif line.startswith("- "):
            items = []
            while i < len(lines) and lines[i].startswith("- "):
                items.append(f"<li>{_inline(lines[i][2:])}</li>")
                i += 1
            out.append("<ul>" + "".join(items) + "</ul>")
            continue
        elif line:
            out.append(f"<p>{_inline(line)}</p>")
        i += 1
    return "\n".join(out)


def _inline(text: str) -> str:
    escaped = html.escape(text, quote=False)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", escaped)


def _table_html(block: list[str]) -> str:
    rows = [[c.strip() for c in r.strip().strip("|").split("|")] for r in block]
    aligns = []
    if len(rows) > 1 and all(re.fullmatch(r":?-+:?", c) for c in rows[1]):
        aligns = ["num" if c.endswith(":") else "" for c in rows[1]]
        rows = [rows[0], *rows[2:]]
    head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f'<td class="{aligns[j] if j < len(aligns) else ""}">{_inline(c)}</td>'
                                    for j, c in enumerate(r)) + "</tr>" for r in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# ------------------------------------------------------------------------------------------------ site


def _template(name: str) -> str:
    return template_path("site", f"{name}.j2").read_text(encoding="utf-8")


def eval_plots(eval_dir: Path) -> list[Path]:
    """The plots of an eval report folder; ``ValueError`` for one that leads outside it (a link), before the site
    writes anything."""
    plots = sorted((eval_dir / "plots").glob("*.png")) if (eval_dir / "plots").is_dir() else []
    for p in plots:
        if not resolves_inside(p, eval_dir) or not p.is_file():
            raise ValueError(f"{p} leads outside the eval folder {eval_dir}; give the folder `mapgen eval -o` wrote "
                             "(its plots are files, not links)")
    return plots


def eval_section(eval_dir: Path, out: Path) -> str:
    """HTML of the eval report (``sources.md`` first — the human row beside the other sources, when the eval
    scored a human result: :mod:`mapgen.human.beside` — then tables.md) plus its plots, copied into
    ``out/eval/plots``."""
    parts = []
    sources = eval_dir / SOURCES_MD
    if sources.is_file():
        parts.append('<div id="sources">' + markdown_to_html(sources.read_text(encoding="utf-8")) + "</div>")
    tables = eval_dir / "tables.md"
    if tables.is_file():
        parts.append(markdown_to_html(tables.read_text(encoding="utf-8")))
    plots = eval_plots(eval_dir)
    if plots:
        dest = out / "eval" / "plots"
        dest.mkdir(parents=True, exist_ok=True)
        imgs = []
        for p in plots:
            copy_file(p, dest / p.name)
            imgs.append(f'<img src="eval/plots/{html.escape(p.name)}" alt="{html.escape(p.stem)}">')
        parts.append('<h2>Plots</h2><div class="plots">' + "".join(imgs) + "</div>")
    return "\n".join(parts) or "<p>The eval folder holds no tables.md or plots.</p>"


def _require_reports(eval_dir: str | Path | None, audit_dir: str | Path | None) -> None:
    """Refuse an ``--eval`` / ``--audit`` folder that the command named did not finish (before any file is
    written): :func:`mapgen.files.require_finished`."""
    for folder, kind, option in ((eval_dir, EVAL_KIND, "--eval"), (audit_dir, AUDIT_KIND, "--audit")):
        if folder is not None:
            require_finished(folder, kind, option)


def build_site(
    bench: str | Path,
    out_dir: str | Path,
    eval_dir: str | Path | None = None,
    audit_dir: str | Path | None = None,
    title: str | None = None,
    force: bool = False,
) -> Path:
    """Write the static site for ``bench`` into ``out_dir``; returns the path of ``index.html``. The benchmark is
    verified against its manifest first, and ``out_dir`` may not be (or lie inside) an input folder. The site is
    written whole or not at all (:func:`mapgen.files.atomic_folder`: a non-empty folder is refused unless
    ``force``)."""
    bench_data, out = load_benchmark(bench, verify="all").require_records(), Path(out_dir)
    for folder, what in ((bench_data.root, "the benchmark folder"), (eval_dir, "the eval folder"),
                         (audit_dir, "the audit folder")):
        if folder is not None:
            refuse_inside(out, folder, what)
    _require_reports(eval_dir, audit_dir)
    if eval_dir:
        eval_plots(Path(eval_dir))  # a plot linking outside is refused before anything is written
    with atomic_folder(out, replace=force, kind=SITE_KIND) as tmp:
        name = _write_site(bench_data, tmp, Path(eval_dir) if eval_dir else None,
                           Path(audit_dir) if audit_dir else None, title)
    return out / name


def _write_site(bench_data: Benchmark, out: Path, eval_dir: Path | None, audit_dir: Path | None,
                title: str | None) -> str:
    """The site's files into ``out``; returns the name of its page."""
    from mapgen import __version__

    root = bench_data.root
    scores = eval_scores(eval_dir) if eval_dir else {}
    audit = audit_rows(audit_dir) if audit_dir else {}
    maps = site_maps(bench_data, scores, audit, eval_dir)
    _copy_images(bench_data, out, [m["id"] for m in maps])
    for name in ASSETS:
        write_text_atomic(out / "assets" / name, _template(name))
    data = json.dumps({"maps": maps}, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    write_text_atomic(out / "data.js", f"window.MAPGEN_SITE = {data};\n")
    n_q = sum(len(m["q"]) for m in maps)
    name = title or bench_data.manifest.get("name") or root.name
    if audit_dir:
        worst = worst_cases(audit_dir)
        write_text_atomic(out / WORST_PAGE, Environment(autoescape=True).from_string(_template("worst.html")).render(
            title=name, worst=worst, version=__version__, csp=CSP))
    page = Environment(autoescape=True).from_string(_template("index.html")).render(
        title=name,
        subtitle=f"{len(maps)} maps, {n_q} questions" + _tables_note(maps),
        has_styles=len(set(bench_data.map_styles.values())) > 1,
        has_eval=bool(eval_dir), eval_html=eval_section(eval_dir, out) if eval_dir else "",
        has_audit=bool(audit_dir), audit_html=_audit_section(audit_dir) if audit_dir else "",
        version=__version__, bench=str(root), csp=CSP,
    )
    return write_text_atomic(out / "index.html", page).name


def _tables_note(maps: list[dict[str, Any]]) -> str:
    n = sum(m["table"] is not None for m in maps)
    return f", {n} gold tables" if n else ""


def _audit_section(audit_dir: Path) -> str:
    md = audit_dir / AUDIT_MARKDOWN_FILE
    return markdown_to_html(md.read_text(encoding="utf-8")) if md.is_file() else "<p>No audit.md found.</p>"


def _copy_images(bench: Benchmark, out: Path, map_ids: list[str]) -> None:
    """Copy each map's image (the one the benchmark names, a file inside its folder) to ``out/maps/``."""
    (out / MAPS_DIR).mkdir(parents=True, exist_ok=True)
    for mid in map_ids:
        src = bench.image_path(mid)
        target = out / image_rel(mid)
        if src is not None and src.is_file() and (not target.exists() or target.stat().st_size != src.stat().st_size):
            copy_file(src, target)
