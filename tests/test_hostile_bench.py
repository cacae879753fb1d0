"""Hostile benchmark folders (issue 37): a built folder edited by hand and re-signed (every hash in its manifest
written anew) must run no script in the report site, make no reader open a file outside the folder, and be refused
when its manifest leaves out a file a reader uses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from mapgen.benchmark import MANIFEST_FILE, file_digests, load_benchmark
from mapgen.build import build
from mapgen.cli import main
from mapgen.export import FORMATS
from mapgen.files import read_jsonl, write_jsonl_atomic

CONFIG = {"name": "hostile", "seed": 1, "countries": [{"name": "china", "maps": 1}],
          "questions": {"per_template": 1, "per_image": 3}, "tasks": ["vqa", "caption", "grounding", "extraction"]}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--virtual-time-budget=5000"]
SECRET = b"TOP-SECRET-8c1f2e do not leak"
UNSIGNED = {MANIFEST_FILE, "build_log.json", ".mapgen-build.json"}


def plain(tag: str) -> str:
    """A payload without a slash (for ids and labels, which are file names): markup whose handler marks the page."""
    return f"<img src=x onerror=\"document.body.dataset.pwned='{tag}'\">"


def rich(tag: str) -> str:
    """A payload for free text: an event handler, a script element and an attribute break-out."""
    return (f"{plain(tag)}\"><script>document.body.dataset.pwned='{tag}-script'</script>"
            f"'><svg/onload=\"document.title='pwned-{tag}'\">")


def resign(root: Path) -> None:
    """Write the manifest's hashes anew for every file of the folder (what an attacker who edits one does)."""
    path = root / MANIFEST_FILE
    manifest = json.loads(path.read_text(encoding="utf-8"))
    rels = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name not in UNSIGNED and not p.relative_to(root).as_posix().startswith("units/")]
    manifest["files"] = file_digests(root, rels)
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")


def edit(root: Path, name: str, change) -> None:
    """Rewrite each record of one JSON-lines file through ``change(record)`` (which edits it in place)."""
    records = read_jsonl(root / name)
    for r in records:
        change(r)
    write_jsonl_atomic(root / name, records)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    bench = tmp_path_factory.mktemp("hostile") / "bench"
    build(CONFIG, bench, progress=False)
    return bench


def copy_of(built: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "bench"
    shutil.copytree(built, folder)
    return folder


# --- 1. the report site runs no injected script ---------------------------------------------------------------


def rename_map(root: Path, old: str, new: str) -> None:
    """Give a map a new id everywhere: its files' names and every record naming it."""
    for path in sorted((root / "maps").glob(f"{old}.*")):
        path.rename(path.with_name(new + path.name[len(old):]))
    for jsonl in sorted(root.glob("*.jsonl")):
        def change(r: dict) -> None:
            if r.get("map_id") == old:
                r["map_id"] = new
                for key in ("image", "image_id"):
                    if isinstance(r.get(key), str):
                        r[key] = r[key].replace(old, new)
        edit(root, jsonl.name, change)


def poison_records(root: Path, template: bool = True) -> str:
    """Put a payload into every field the site shows (the template ids too unless not ``template``: the audit
    refuses a template it does not know); returns the hostile map id."""
    maps = read_jsonl(root / "maps.jsonl")
    target = next(m["map_id"] for m in maps if m["variant"] == "annotated")
    new_id = "china" + plain("map-id")
    rename_map(root, target, new_id)

    def on_map(r: dict) -> None:
        r.update(title=rich("title"), country=plain("country"), variant=plain("variant"),
                 map_type=plain("map-type"), split=plain("split"))

    def on_question(r: dict) -> None:
        r.update(question=rich("question"), answer=rich("answer"))
        if template:
            r["template_id"] = rich("template")

    def on_caption(r: dict) -> None:
        r.update(ground_truth=rich("caption"), short_caption=rich("short-caption"))

    def on_reference(r: dict) -> None:
        r["question"] = rich("referring")

    def on_table(r: dict) -> None:
        for i, row in enumerate(r["rows"]):
            row["region"] = rich(f"region-{i}")

    for name, change in (("maps.jsonl", on_map), ("questions.jsonl", on_question), ("captions.jsonl", on_caption),
                         ("grounding.jsonl", on_reference), ("extraction.jsonl", on_table)):
        edit(root, name, change)
    manifest = json.loads((root / MANIFEST_FILE).read_text())
    manifest["name"] = rich("bench-name")
    (root / MANIFEST_FILE).write_text(json.dumps(manifest))
    return new_id


@pytest.fixture(scope="module")
def hostile_site(built: Path, tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("hostile-site")
    bench = copy_of(built, root)
    map_id = poison_records(bench)
    resign(bench)
    predictions = root / "predictions.jsonl"
    table = f"{rich('reply')}\n\n| Region | Class |\n| --- | --- |\n| {plain('reply-region')} | {plain('reply-class')} |\n"
    replies = [{"question_id": q["question_id"], "prediction": rich("prediction")}
               for q in read_jsonl(bench / "questions.jsonl")]
    replies += [{"question_id": t["question_id"], "prediction": table} for t in read_jsonl(bench / "extraction.jsonl")]
    predictions.write_text("".join(json.dumps(r) + "\n" for r in replies), encoding="utf-8")
    ran = CliRunner().invoke(main, ["eval", str(bench), "--predictions", str(predictions), "-o", str(root / "eval"),
                                    "--no-plots"])
    assert ran.exit_code == 0, ran.output
    edit(bench, "grounding.jsonl", lambda r: r.update(box=[rich("box"), 10, 200, 200]))  # the box of issue 37
    resign(bench)
    ran = CliRunner().invoke(main, ["report", str(bench), "-o", str(root / "site"), "--eval", str(root / "eval")])
    assert ran.exit_code == 0, ran.output
    return root / "site", map_id


@pytest.fixture(scope="module")
def hostile_audit_site(built: Path, tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("hostile-audit")
    bench = copy_of(built, root)
    map_id = poison_records(bench, template=False)
    resign(bench)
    for args in (["audit", str(bench), "-o", str(root / "audit")],
                 ["report", str(bench), "-o", str(root / "site"), "--audit", str(root / "audit")]):
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 0, ran.output
    return root / "site", map_id


def _dom(url: str, tmp_path: Path) -> str:
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    return done.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_no_injected_script_runs_in_chromium(hostile_site: tuple[Path, str], tmp_path: Path) -> None:
    site, map_id = hostile_site
    index = (site / "index.html").resolve().as_uri()
    pages = {"grid": index, "detail": f"{index}#map={quote(map_id, safe='')}", "eval": f"{index}#eval"}
    for page, url in pages.items():
        dom = _dom(url, tmp_path)
        assert 'data-status="ready"' in dom, (page, dom[-2000:])  # the site ran, with the payloads in its data
        assert "pwned" not in dom.split("<body", 1)[1].split(">", 1)[0], page  # no handler or script marked it
        assert "<title>pwned" not in dom, page
        assert '<pre id="site-errors"></pre>' in dom, (page, dom[dom.find("site-errors") - 50:][:1500])
        assert "&lt;img src=x onerror=" in dom, page  # the payloads are on the page, as text
    detail = _dom(pages["detail"], tmp_path)
    for tag in ("title", "map-id", "country", "variant", "map-type", "split", "question", "answer", "prediction",
                "caption", "short-caption", "referring", "box", "region-0", "reply", "reply-region"):
        assert f"pwned='{tag}'" in detail, tag  # every field the site shows is on the detail page, inert


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_no_injected_script_runs_with_the_audit(hostile_audit_site: tuple[Path, str], tmp_path: Path) -> None:
    site, map_id = hostile_audit_site
    index = (site / "index.html").resolve().as_uri()
    for url in (f"{index}#map={quote(map_id, safe='')}", f"{index}#audit", (site / "worst.html").resolve().as_uri()):
        dom = _dom(url, tmp_path)
        assert "pwned" not in dom.split("<body", 1)[1].split(">", 1)[0] and "<title>pwned" not in dom, url
        assert "&lt;img src=x onerror=" in dom, url  # the hostile map id is on the page, as text
    detail = _dom(f"{index}#map={quote(map_id, safe='')}", tmp_path)
    assert "<th>Pixel oracle</th>" in detail and '<pre id="site-errors"></pre>' in detail


def test_pages_carry_a_policy_and_no_inline_script(hostile_site: tuple[Path, str],
                                                    hostile_audit_site: tuple[Path, str]) -> None:
    site, audit_site = hostile_site[0], hostile_audit_site[0]

    class Scan(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.inline_scripts, self.handlers, self.policy = 0, [], ""

        def handle_starttag(self, tag: str, attrs: list) -> None:
            found = dict(attrs)
            self.handlers += [name for name, _ in attrs if name.startswith("on")]
            if tag == "script" and not found.get("src"):
                self.inline_scripts += 1
            if tag == "meta" and (found.get("http-equiv") or "").lower() == "content-security-policy":
                self.policy = found.get("content") or ""

    for page in (site / "index.html", audit_site / "index.html", audit_site / "worst.html"):
        scan = Scan()
        scan.feed(page.read_text(encoding="utf-8"))
        assert scan.inline_scripts == 0 and scan.handlers == [], page
        assert "script-src 'self'" in scan.policy and "unsafe-inline" not in scan.policy, page
        assert "default-src 'none'" in scan.policy, page
    app = (site / "assets" / "app.js").read_text(encoding="utf-8")
    assert "innerHTML" not in app and "insertAdjacentHTML" not in app and "document.write" not in app


# --- 2. paths stay inside the benchmark folder ------------------------------------------------------------------


def _no_secret_under(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.name != "secret.txt":
            assert SECRET not in path.read_bytes(), path


@pytest.fixture()
def leaky(built: Path, tmp_path: Path) -> Path:
    """A bench whose maps.jsonl names ``../secret.txt`` as a map's image (re-signed)."""
    (tmp_path / "secret.txt").write_bytes(SECRET)
    bench = copy_of(built, tmp_path)
    first = read_jsonl(bench / "maps.jsonl")[0]["map_id"]
    edit(bench, "maps.jsonl", lambda r: r.update(image="../secret.txt") if r["map_id"] == first else None)
    resign(bench)
    return bench


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_export_refuses_an_image_outside_the_folder(leaky: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"out-{fmt}"
    ran = CliRunner().invoke(main, ["export", str(leaky), "--format", fmt, "-o", str(out)])
    assert ran.exit_code == 2, ran.output
    line = ran.output.strip().splitlines()[-1]
    assert "maps.jsonl:1: field 'image'" in line and "'../secret.txt'" in line, line
    assert "points outside the benchmark folder" in line and "mapgen build" in line, line
    assert not out.exists()
    _no_secret_under(tmp_path)


def test_eval_report_audit_and_prompt_refuse_it(leaky: Path, tmp_path: Path) -> None:
    question = read_jsonl(leaky / "questions.jsonl")[0]["question_id"]
    commands = {"eval-baseline": ["eval", str(leaky), "--baseline", "random", "-o", str(tmp_path / "e1")],
                "eval-pixel": ["eval", str(leaky), "--baseline", "pixel", "-o", str(tmp_path / "e2")],
                "report": ["report", str(leaky), "-o", str(tmp_path / "site")],
                "audit": ["audit", str(leaky), "-o", str(tmp_path / "audit")],
                "prompt": ["prompt", str(leaky), "--question", question, "--json"]}
    for name, args in commands.items():
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 2, (name, ran.output)
        assert "'../secret.txt'" in ran.output and "points outside" in ran.output, (name, ran.output)
    _no_secret_under(tmp_path)


def test_a_link_out_of_the_folder_is_refused(built: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    bench = copy_of(built, tmp_path)
    image = bench / read_jsonl(bench / "maps.jsonl")[0]["image"]
    image.unlink()
    image.symlink_to(tmp_path / "secret.txt")
    resign(bench)  # the attacker's manifest lists the secret's hash
    for args in (["export", str(bench), "--format", "hf", "-o", str(tmp_path / "hf")],
                 ["eval", str(bench), "--baseline", "random", "-o", str(tmp_path / "e")]):
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 2 and image.name in ran.output and "points outside" in ran.output, ran.output
    _no_secret_under(tmp_path)


def test_an_id_that_is_a_path_is_refused(built: Path, tmp_path: Path) -> None:
    bench = copy_of(built, tmp_path)
    edit(bench, "questions.jsonl", lambda r: r.update(map_id="../../escape"))
    resign(bench)
    ran = CliRunner().invoke(main, ["export", str(bench), "--format", "jsonl", "-o", str(tmp_path / "out")])
    assert ran.exit_code == 2 and "questions.jsonl:1: field 'map_id'" in ran.output, ran.output
    assert "not a plain name" in ran.output and not (tmp_path / "escape.png").exists()


def test_exports_copy_never_link(built: Path, tmp_path: Path) -> None:
    ran = CliRunner().invoke(main, ["export", str(built), "--format", "jsonl", "-o", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    images = sorted((tmp_path / "out" / "images").glob("*.png"))
    assert images and all(os.stat(p).st_nlink == 1 for p in images)
    assert all(os.stat(p).st_nlink == 1 for p in (built / "maps").glob("*.png"))


# --- 3. a benchmark is what its manifest lists ------------------------------------------------------------------


def test_a_manifest_listing_nothing_is_refused_by_every_reader(built: Path, tmp_path: Path) -> None:
    bench = copy_of(built, tmp_path)
    edit(bench, "questions.jsonl", lambda r: r.update(answer="Atlantis", accepted_answers={}))
    manifest = json.loads((bench / MANIFEST_FILE).read_text())
    manifest["files"] = {}
    (bench / MANIFEST_FILE).write_text(json.dumps(manifest))
    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps({"question_id": q["question_id"], "prediction": "Atlantis"}) + "\n"
                                   for q in read_jsonl(bench / "questions.jsonl")))
    commands = [["eval", str(bench), "--predictions", str(predictions), "-o", str(tmp_path / "e")],
                ["export", str(bench), "--format", "jsonl", "-o", str(tmp_path / "x")],
                ["report", str(bench), "-o", str(tmp_path / "site")],
                ["audit", str(bench), "-o", str(tmp_path / "audit")]]
    for args in commands:
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 2, (args[0], ran.output)
        assert "is not listed in" in ran.output and "manifest.json" in ran.output, (args[0], ran.output)
        assert "score" not in ran.output
    with pytest.raises(ValueError, match="is not listed in"):
        load_benchmark(bench)  # whatever the reader verifies
    info = CliRunner().invoke(main, ["info", str(bench)])
    assert "0 files" in info.output and "used but not listed in manifest.json" in info.output, info.output
    assert "not listed in manifest.json (readers refuse the folder): questions.jsonl" in info.output
    assert "more not listed (`mapgen info --json` lists every one)" in info.output


def test_one_unlisted_image_is_refused(built: Path, tmp_path: Path) -> None:
    bench = copy_of(built, tmp_path)
    manifest = json.loads((bench / MANIFEST_FILE).read_text())
    image = read_jsonl(bench / "maps.jsonl")[-1]["image"]
    del manifest["files"][image]
    (bench / MANIFEST_FILE).write_text(json.dumps(manifest))
    ran = CliRunner().invoke(main, ["export", str(bench), "--format", "hf", "-o", str(tmp_path / "hf")])
    assert ran.exit_code == 2 and f"{image} is not listed in" in ran.output, ran.output


def test_a_folder_without_a_manifest_is_refused_by_readers(built: Path, tmp_path: Path) -> None:
    bench = copy_of(built, tmp_path)
    (bench / MANIFEST_FILE).unlink()
    (bench / ".mapgen-build.json").unlink(missing_ok=True)
    ran = CliRunner().invoke(main, ["eval", str(bench), "--baseline", "random", "-o", str(tmp_path / "e")])
    assert ran.exit_code == 2 and "has no manifest.json listing" in ran.output, ran.output


def test_an_intact_build_reads(built: Path) -> None:
    bench = load_benchmark(built, verify="all")
    assert bench.maps and bench.question_records and all(bench.image_path(m["map_id"]) for m in bench.maps)
    assert CliRunner().invoke(main, ["info", str(built)]).output.splitlines()[0].endswith(
        "0 failing checksum, 0 used but not listed in manifest.json")


def test_a_map_json_naming_an_atlas_outside_is_refused(built: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    bench = copy_of(built, tmp_path)
    path = bench / "maps" / f"{read_jsonl(bench / 'maps.jsonl')[0]['map_id']}.json"
    data = json.loads(path.read_text())
    data["spec"]["atlas_file"] = {"path": "../../secret.txt", "sha256": "0" * 64, "name_field": None,
                                  "code_field": None}
    path.write_text(json.dumps(data))
    resign(bench)
    for args in (["audit", str(bench), "-o", str(tmp_path / "audit")],
                 ["export", str(bench), "--format", "mapwise", "-o", str(tmp_path / "mw")]):
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 2, ran.output
        assert "field 'atlas_file.path': '../../secret.txt' points outside" in ran.output, ran.output


def test_a_manifest_listing_a_file_outside_is_refused(built: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    bench = copy_of(built, tmp_path)
    manifest = json.loads((bench / MANIFEST_FILE).read_text())
    manifest["files"]["../secret.txt"] = "0" * 64
    (bench / MANIFEST_FILE).write_text(json.dumps(manifest))
    ran = CliRunner().invoke(main, ["eval", str(bench), "--baseline", "random", "-o", str(tmp_path / "e")])
    assert ran.exit_code == 2 and "field 'files': '../secret.txt' points outside" in ran.output, ran.output
    info = CliRunner().invoke(main, ["info", str(bench)])  # refused too, the secret never hashed
    assert info.exit_code == 2 and "field 'files': '../secret.txt' points outside" in info.output, info.output


def test_report_refuses_an_eval_plot_linking_outside(built: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    ran = CliRunner().invoke(main, ["eval", str(built), "--baseline", "random", "-o", str(tmp_path / "e"),
                                    "--no-plots"])
    assert ran.exit_code == 0, ran.output
    (tmp_path / "e" / "plots").mkdir(exist_ok=True)
    (tmp_path / "e" / "plots" / "score.png").symlink_to(tmp_path / "secret.txt")
    ran = CliRunner().invoke(main, ["report", str(built), "-o", str(tmp_path / "site"), "--eval", str(tmp_path / "e")])
    assert ran.exit_code == 2 and "score.png leads outside the eval folder" in ran.output, ran.output
    assert not (tmp_path / "site").exists()
    _no_secret_under(tmp_path)


def test_a_fifo_for_an_image_is_refused_not_read(built: Path, tmp_path: Path) -> None:
    bench = copy_of(built, tmp_path)
    image = bench / read_jsonl(bench / "maps.jsonl")[0]["image"]
    resign(bench)  # the manifest lists the image as it was
    image.unlink()
    os.mkfifo(image)  # opening it would block every reader forever
    for args in (["export", str(bench), "--format", "hf", "-o", str(tmp_path / "hf")],
                 ["eval", str(bench), "--baseline", "random", "-o", str(tmp_path / "e")]):
        ran = CliRunner().invoke(main, args)
        assert ran.exit_code == 2 and f"{image} is not a regular file" in ran.output, ran.output


def test_a_pack_path_outside_is_refused(built: Path, tmp_path: Path) -> None:
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "functions.py").write_text("raise SystemExit('ran code from outside the folder')\n")
    bench = copy_of(built, tmp_path)
    manifest = json.loads((bench / MANIFEST_FILE).read_text())
    manifest["packs"] = {"evil": {"path": "../evil", "sha256": "0" * 64, "source": "evil"}}
    (bench / MANIFEST_FILE).write_text(json.dumps(manifest))
    ran = CliRunner().invoke(main, ["audit", str(bench), "-o", str(tmp_path / "audit")])
    assert ran.exit_code == 2 and "packs.evil.path: '../evil' points outside" in ran.output, ran.output


def test_files_no_reader_opens_need_no_listing(built: Path, tmp_path: Path) -> None:
    """A desktop's hidden files, a note beside the maps and Python's bytecode cache of a pack are not part of the
    benchmark: the folder still reads (an image it does not list would not)."""
    bench = copy_of(built, tmp_path)
    (bench / "maps" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (bench / "maps" / "notes.txt").write_text("looked at these")
    cache = bench / "packs" / "mine" / "__pycache__"
    cache.mkdir(parents=True)
    (cache / "functions.cpython-311.pyc").write_bytes(b"\x00")
    assert load_benchmark(bench, verify="all").maps
    (bench / "maps" / "extra.png").write_bytes((bench / read_jsonl(bench / "maps.jsonl")[0]["image"]).read_bytes())
    with pytest.raises(ValueError, match="maps/extra.png is not listed in"):
        load_benchmark(bench)


def test_a_short_scores_row_reads_as_empty_cells(tmp_path: Path) -> None:
    from mapgen.report_site.site import eval_scores

    (tmp_path / "scores.csv").write_text("question_id,extracted,main\nq1,\"[1, 2]\",1.0\nq2,Texas\n")
    assert eval_scores(tmp_path) == {"q1": {"pred": [1, 2], "score": 1.0}, "q2": {"pred": "Texas", "score": None}}
