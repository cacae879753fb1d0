"""``mapgen questions`` and ``mapgen templates ...``: generate questions, inspect and lint templates."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from mapgen.cli.limits import PER_TEMPLATE, SEED
from mapgen.cli.studio import studio
from mapgen.questions import (
    builtin_files,
    function_signatures,
    generate_questions,
    instantiate,
    language_files,
    lint_language_file,
    lint_packs,
    load_templates,
    write_jsonl,
)
from mapgen.scene import load_scene
from mapgen.yamlio import safe_load


@click.command("questions")
@click.argument("map_json", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write JSON lines here (default: stdout).")
@click.option("--per-template", type=PER_TEMPLATE, default=2, show_default=True, help="Questions per template.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed (same map + seed = same questions).")
@click.option("--templates", "template_files", multiple=True, type=click.Path(exists=True),
              help="Template pack(s) (folder or YAML file; repeatable) to use instead of the built-in templates.")
def questions(map_json: str, output: str | None, per_template: int, seed: int, template_files: tuple[str, ...]) -> None:
    """Generate questions with computed answers for the map in MAP_JSON."""
    if output:
        from mapgen.files import refuse_overwrite

        refuse_overwrite(output, map_json)
    scene = load_scene(map_json)
    templates = load_templates(list(template_files)) if template_files else None
    qs = generate_questions(scene, templates, per_template=per_template, seed=seed)
    if output:
        write_jsonl(qs, output)
        click.echo(f"{len(qs)} questions -> {output}", err=True)
    else:
        for q in qs:
            click.echo(json.dumps(q.to_dict(), ensure_ascii=False))


@click.group("templates")
def templates() -> None:
    """List, show, preview and lint question templates."""


def _set(files: tuple[str, ...], builtin: bool = False):
    """The templates of the packs named (with the built-in ones when ``builtin``), else the built-in ones."""
    return load_templates(list(files), builtin=builtin) if files else load_templates()


_FILES = click.option("--templates", "--file", "files", multiple=True, type=click.Path(exists=True),
                      help="Template pack(s): a folder or a YAML file, repeatable (default: the built-in templates). "
                           "A pack's functions.py is Python and runs when the pack is named.")


@templates.command("list")
@_FILES
def templates_list(files: tuple[str, ...]) -> None:
    """id, MAPWise number, answer type, map types, first text variant."""
    for t in _set(files):
        text = next(iter(t.text.values()))[0]
        click.echo(f"{t.id}\t{t.mapwise or '-'}\t{t.answer_type}\t{'/'.join(t.map_types)}\t{text}")


@templates.command("show")
@click.argument("template")
@_FILES
def templates_show(template: str, files: tuple[str, ...]) -> None:
    """Everything about one template (by id or MAPWise number), with the definitions it uses."""
    ts = _set(files, builtin=True)
    t = ts.get(template)
    record = t.to_dict() | {"definitions": {w: ts.definitions.get(w, "") for w in t.uses}}
    click.echo(json.dumps(record, indent=2, ensure_ascii=False))


@templates.command("preview")
@click.argument("template")
@click.option("--map", "map_json", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("-n", "count", type=PER_TEMPLATE, default=20, show_default=True, help="Instantiations to show.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@_FILES
def templates_preview(template: str, map_json: str, count: int, seed: int, files: tuple[str, ...]) -> None:
    """Instantiations of one template on a map, each with its answer and program trace."""
    from mapgen.questions import rejections

    t = _set(files, builtin=True).get(template)
    scene = load_scene(map_json)
    qs = instantiate(t, scene, count, seed, max_answer_share=1.0, attempts=max(200, 40 * count))
    if not qs:
        click.echo(f"no valid instantiation of {t.id} on map {scene.map_id} ({scene.map_type}); why:")
        for line in rejections(t, scene, attempts=max(200, 40 * count), seed=seed):
            click.echo(f"  {line}")
    for q in qs:
        click.echo(f"Q: {q.question}\nA: {q.answer}  (relative_region={q.relative_region})")
        for step in q.program:
            click.echo(f"   {json.dumps(step, ensure_ascii=False)}")


@templates.command("new")
@click.argument("template_id")
@click.option("-o", "--output", "folder", required=True, type=click.Path(file_okay=False),
              help="The pack folder to write (its templates.yaml must not exist yet).")
def templates_new(template_id: str, folder: str) -> None:
    """Write a commented starter pack with one template TEMPLATE_ID (it lints; edit it from there)."""
    from mapgen.questions import write_starter

    click.echo(f"wrote {write_starter(template_id, folder)}; next: mapgen templates lint {folder}")


@templates.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
def templates_lint(paths: tuple[str, ...]) -> None:
    """Check template packs (folders or YAML files) before use: types, values, keys, ids, texts, definitions."""
    if not paths:  # the shipped templates, every language's texts (each must cover every template) and map words
        bad = _lint(tuple(str(f) for f in (*builtin_files(), *language_files())))
        sys.exit(1 if bad | _lint_map_words() else 0)
    sys.exit(1 if _lint(paths) else 0)


def _lint(paths: tuple[str, ...]) -> bool:
    """Lint language files one by one and the packs together (ids unique across them); True on a problem."""
    languages = [p for p in paths if _is_language_file(p)]
    bad = False
    for path in languages:
        bad |= _report_lint(path, lint_language_file(path))
    pack_paths = [p for p in paths if p not in languages and _is_pack(p)]
    bad |= len(pack_paths) + len(languages) < len(paths)
    if not pack_paths:
        return bad
    packs, problems = lint_packs(pack_paths)
    for line in problems:
        click.echo(line)
    for path, pack in zip(pack_paths, packs):
        names = [f"{f.name}:" for f in pack.template_files] if pack.builtin else [f"{pack.path}{os.sep}", f"{pack.path}:"]
        if not any(line.startswith(tuple(names)) for line in problems):
            click.echo(f"{path}: ok")
    return bad or bool(problems)


def _is_pack(path: str) -> bool:
    """Whether ``path`` is a template pack (else its problem is printed)."""
    from mapgen.questions import PackError, open_pack

    try:
        open_pack(path)
    except PackError as exc:
        click.echo(str(exc))
        return False
    return True


def _is_language_file(path: str) -> bool:
    """A shipped-style language file (``language:`` at the top), not a pack."""
    import yaml

    if not path.endswith((".yaml", ".yml")) or not os.path.isfile(path):
        return False
    try:
        data = safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and "language" in data and "templates" in data and "definitions" not in data \
        and isinstance(data["templates"], dict)


def _report_lint(name: str, problems: list[str]) -> bool:
    """Print a linted file's problems (or ``ok``); True when it has any."""
    for p in problems:
        click.echo(f"{name}: {p}")
    if not problems:
        click.echo(f"{name}: ok")
    return bool(problems)


def _lint_map_words() -> bool:
    """Lint every language's map words (titles, units, legend words: ``templates/lang/map/``); True on a problem."""
    from mapgen.data.map_words import lint_map_words
    from mapgen.geo.languages import LANGUAGES

    bad = False
    for language in (lang for lang in LANGUAGES if lang != "en"):
        bad |= _report_lint(f"templates/lang/map/{language}.yaml", lint_map_words(language))
    return bad


@templates.command("functions")
@_FILES
def templates_functions(files: tuple[str, ...]) -> None:
    """The function library programs may call, with argument types (and the functions of the packs named)."""
    if files:
        load_templates(list(files))  # imports the packs' functions.py
    for f in function_signatures():
        click.echo(f"{f.name}({', '.join(f.args)}) -> {f.returns}\t{f.doc.splitlines()[0] if f.doc else ''}")


templates.add_command(studio)
