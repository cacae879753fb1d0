"""Question templates as data: loading, parsing programs, and linting template files.

A template file is YAML: ``definitions`` (vague words → their written definition) and ``templates``, a list of
records::

    - id: state_in_range            # unique id
      mapwise: 9                    # MAPWise template number (1-43) or null for user templates
      answer_type: binary           # binary | single | count | list | range | ranking
      map_types: [discrete, continuous]
      params:                       # typed parameters, sampled in order
        X: Region
        Y: LegendClass
      text:                         # jinja2 variants (a list, or {discrete: [...], continuous: [...]})
        - "Does {{ X }} fall in range {{ Y }}?"
      program:                      # steps ``name: call``; the step named ``answer`` is the answer
        - answer: equals(range_of(X), Y)
      constraints: []               # calls that must be true for a question to be kept
      uses: [similar]               # vague words this template relies on (must be defined)

Parameters: a type name, or ``{type: T, from: <call>, values: [...], prefer_first: p, min_members: n}``.
``from`` computes the candidates (it may use earlier parameters); ``prefer_first`` picks the first candidate
with probability p (domain helpers order yes-answers first so binary questions can be balanced).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mapgen.questions.functions import FUNCTIONS
from mapgen.questions.record import ANSWER_TYPES
from mapgen.resources import template_path

PARAM_TYPES: dict[str, str] = {
    "Region": "a region of the map (legible, with a value)",
    "RegionGroup": "a named group of regions or 'bordering <region>'",
    "LegendClass": "a legend range: class (discrete) or tick interval (continuous)",
    "Direction": "north / south / east / west",
    "Comparison": "higher / lower / similar",
    "Extreme": "highest / lowest / second highest / second lowest",
    "Number": "a number read off the legend: class boundary (discrete) or tick (continuous)",
    "N": "a small whole number",
    "Choice": "one of the listed strings",
}
DEFAULT_VALUES: dict[str, list[Any]] = {
    "Direction": ["north", "south", "east", "west"],
    "Comparison": ["higher", "lower", "similar"],
    "Extreme": ["highest", "lowest"],
    "N": [2, 3],
}
MAP_TYPES = ("discrete", "continuous")
TEMPLATE_KEYS = {
    "id", "mapwise", "answer_type", "map_types", "params", "text", "program", "constraints", "uses", "notes",
    "tags",
}  # fmt: skip


class TemplateError(ValueError):
    """A template file is invalid (the message names the template and the problem)."""


# ---------------------------------------------------------------------------------------------- programs

Node = tuple  # ("call", name, args) | ("ref", name) | ("lit", value)
_TOKEN = re.compile(r"\s*(?:(?P<num>-?\d+(?:\.\d+)?)|(?P<str>'[^']*'|\"[^\"]*\")|(?P<id>[A-Za-z_]\w*)|(?P<p>[(),]))")


def parse_expr(text: str) -> Node:
    """Parse ``fn(a, g(b), 'lit', 2)`` into a node tree."""
    tokens = []
    pos = 0
    text = str(text).strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise TemplateError(f"cannot parse {text!r} at {text[pos:]!r}")
        pos = m.end()
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
    node, rest = _parse(tokens, text)
    if rest:
        raise TemplateError(f"unexpected {rest[0][1]!r} in {text!r}")
    return node


def _parse(tokens: list, text: str) -> tuple[Node, list]:
    if not tokens:
        raise TemplateError(f"incomplete expression {text!r}")
    (kind, tok), rest = tokens[0], tokens[1:]
    if kind == "num":
        return ("lit", float(tok) if "." in tok else int(tok)), rest
    if kind == "str":
        return ("lit", tok[1:-1]), rest
    if kind != "id":
        raise TemplateError(f"unexpected {tok!r} in {text!r}")
    if not rest or rest[0][1] != "(":
        return ("ref", tok), rest
    rest = rest[1:]
    args = []
    while rest and rest[0][1] != ")":
        arg, rest = _parse(rest, text)
        args.append(arg)
        if rest and rest[0][1] == ",":
            rest = rest[1:]
    if not rest:
        raise TemplateError(f"missing ')' in {text!r}")
    return ("call", tok, tuple(args)), rest[1:]


def node_text(node: Node) -> str:
    """Inverse of :func:`parse_expr`."""
    if node[0] == "call":
        return f"{node[1]}({', '.join(node_text(a) for a in node[2])})"
    if node[0] == "ref":
        return node[1]
    return repr(node[1]) if isinstance(node[1], str) else str(node[1])


def calls_in(node: Node) -> Iterable[str]:
    """Names of every function a node calls."""
    if node[0] == "call":
        yield node[1]
        for a in node[2]:
            yield from calls_in(a)


def refs_in(node: Node) -> Iterable[str]:
    """Names a node refers to."""
    if node[0] == "ref":
        yield node[1]
    elif node[0] == "call":
        for a in node[2]:
            yield from refs_in(a)


# ---------------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Param:
    """A typed template parameter."""

    name: str
    type: str
    source: Node | None = None
    values: tuple[Any, ...] = ()
    prefer_first: float = 0.0
    min_members: int = 2
    refs: tuple[str, ...] = ()  # earlier parameters the source depends on


@dataclass
class Template:
    """One question template (see the module docstring for the file format)."""

    id: str
    mapwise: int | None
    answer_type: str
    map_types: tuple[str, ...]
    params: tuple[Param, ...]
    text: dict[str, tuple[str, ...]]  # map type -> variants
    program: tuple[tuple[str, Node], ...]
    constraints: tuple[Node, ...] = ()
    uses: tuple[str, ...] = ()
    notes: str = ""
    tags: tuple[str, ...] = ()
    source: str = ""
    relative: bool = False
    _compiled: dict[str, list[Any]] = field(default_factory=dict, repr=False, compare=False)

    def applies_to(self, map_type: str) -> bool:
        return map_type in self.map_types

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``mapgen templates show``)."""
        return {
            "id": self.id,
            "mapwise": self.mapwise,
            "answer_type": self.answer_type,
            "map_types": list(self.map_types),
            "params": {
                p.name: {
                    "type": p.type,
                    **({"from": node_text(p.source)} if p.source else {}),
                    **({"values": list(p.values)} if p.values else {}),
                }
                for p in self.params
            },
            "text": {k: list(v) for k, v in self.text.items()},
            "program": [{name: node_text(node)} for name, node in self.program],
            "constraints": [node_text(c) for c in self.constraints],
            "uses": list(self.uses),
            "relative_region": self.relative,
            "notes": self.notes,
            "source": self.source,
        }


@dataclass
class TemplateSet:
    """Templates plus the written definitions of the vague words they use."""

    templates: list[Template]
    definitions: dict[str, str]

    def __iter__(self):
        return iter(self.templates)

    def __len__(self) -> int:
        return len(self.templates)

    def get(self, key: str | int) -> Template:
        """A template by id or MAPWise number (first match)."""
        for t in self.templates:
            if t.id == str(key) or (str(key).isdigit() and t.mapwise == int(key)):
                return t
        raise TemplateError(f"no template {key!r}; ids: {', '.join(t.id for t in self.templates)}")


# ---------------------------------------------------------------------------------------------- loading


def builtin_files() -> list[Any]:
    """The template files shipped with mapgen."""
    folder = template_path("questions")
    return sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)


_BUILTIN: TemplateSet | None = None


def load_templates(paths: str | Path | Iterable[str | Path] | None = None) -> TemplateSet:
    """Load template files (default: mapgen's MAPWise templates); raises TemplateError on any lint error."""
    global _BUILTIN
    if paths is None and _BUILTIN is not None:
        return _BUILTIN
    files = builtin_files() if paths is None else [paths] if isinstance(paths, (str, Path)) else list(paths)
    templates: list[Template] = []
    definitions: dict[str, str] = {}
    for f in files:
        data = yaml.safe_load(Path(f).read_text(encoding="utf-8") if not hasattr(f, "read_text") else f.read_text(
            encoding="utf-8"))
        problems, parsed, defs = check_data(data, str(getattr(f, "name", f)), known_definitions=definitions)
        if problems:
            raise TemplateError(f"{f}: " + "; ".join(problems))
        templates.extend(parsed)
        definitions.update(defs)
    ids = [t.id for t in templates]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise TemplateError(f"duplicate template ids: {dup}")
    result = TemplateSet(templates, definitions)
    if paths is None:
        _BUILTIN = result
    return result


def lint_file(path: str | Path) -> list[str]:
    """Problems found in a template file (empty when it is valid). Builtin definitions count as defined."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        return [f"not valid YAML: {exc}"]
    builtin = load_templates().definitions
    problems, _, _ = check_data(data, str(path), known_definitions=builtin)
    return problems


def check_data(
    data: Any, source: str = "", known_definitions: dict[str, str] | None = None
) -> tuple[list[str], list[Template], dict[str, str]]:
    """Validate parsed YAML; returns (problems, templates, definitions)."""
    if isinstance(data, list):
        data = {"templates": data}
    if not isinstance(data, dict) or not isinstance(data.get("templates"), list):
        return ["the file needs a 'templates:' list"], [], {}
    defs = {str(k): str(v) for k, v in (data.get("definitions") or {}).items()}
    known = {**(known_definitions or {}), **defs}
    problems: list[str] = []
    out: list[Template] = []
    for i, rec in enumerate(data["templates"]):
        where = f"template {rec.get('id', f'#{i}') if isinstance(rec, dict) else f'#{i}'}"
        try:
            t, errs = _template(rec, source, known)
        except TemplateError as exc:
            problems.append(f"{where}: {exc}")
            continue
        problems.extend(f"{where}: {e}" for e in errs)
        if not errs:
            out.append(t)
    return problems, out, defs


def _param(name: str, spec: Any) -> Param:
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict) or "type" not in spec:
        raise TemplateError(f"parameter {name!r} needs a type (one of {', '.join(PARAM_TYPES)})")
    ptype = spec["type"]
    if ptype not in PARAM_TYPES:
        raise TemplateError(f"parameter {name!r} has unknown type {ptype!r}; valid types: {', '.join(PARAM_TYPES)}")
    values = tuple(spec.get("values") or DEFAULT_VALUES.get(ptype, ()))
    if ptype == "Choice" and not values:
        raise TemplateError(f"Choice parameter {name!r} needs 'values'")
    source = parse_expr(spec["from"]) if spec.get("from") else None
    refs = tuple(dict.fromkeys(refs_in(source))) if source else ()
    return Param(
        name, ptype, source, values, float(spec.get("prefer_first", 0.0)), int(spec.get("min_members", 2)), refs
    )


def _template(rec: Any, source: str, known_defs: dict[str, str]) -> tuple[Template, list[str]]:
    if not isinstance(rec, dict):
        raise TemplateError("each template must be a mapping")
    errs: list[str] = []
    unknown_keys = sorted(set(rec) - TEMPLATE_KEYS)
    if unknown_keys:
        errs.append(f"unknown keys {unknown_keys}; valid keys: {sorted(TEMPLATE_KEYS)}")
    for key in ("id", "answer_type", "text", "program"):
        if key not in rec:
            errs.append(f"missing '{key}'")
    if errs:
        return None, errs  # type: ignore[return-value]
    if rec["answer_type"] not in ANSWER_TYPES:
        errs.append(f"unknown answer_type {rec['answer_type']!r}; valid: {', '.join(ANSWER_TYPES)}")
    mapwise = rec.get("mapwise")
    if mapwise is not None and not (isinstance(mapwise, int) and 1 <= mapwise <= 43):
        errs.append(f"mapwise must be a MAPWise template number 1-43, got {mapwise!r}")
    map_types = tuple(rec.get("map_types") or MAP_TYPES)
    for mt in map_types:
        if mt not in MAP_TYPES:
            errs.append(f"unknown map type {mt!r}; valid: {', '.join(MAP_TYPES)}")
    params = tuple(_param(str(k), v) for k, v in (rec.get("params") or {}).items())
    text = rec["text"]
    variants = {mt: tuple(text) for mt in map_types} if isinstance(text, list) else {
        str(k): tuple(v) for k, v in text.items()
    }
    for mt in map_types:
        if not variants.get(mt):
            errs.append(f"no text variants for map type {mt!r}")
    program = []
    for step in rec["program"]:
        if not isinstance(step, dict) or len(step) != 1:
            errs.append(f"program steps must be one 'name: call' mapping each, got {step!r}")
            continue
        (name, expr), = step.items()
        program.append((str(name), parse_expr(expr)))
    constraints = tuple(parse_expr(c) for c in rec.get("constraints") or ())
    if program and program[-1][0] != "answer" and "answer" not in dict(program):
        errs.append("the program needs a step named 'answer'")
    errs += _check_names(params, program, constraints)
    errs += _check_text(params, variants)
    uses = tuple(rec.get("uses") or ())
    for word in uses:
        if word not in known_defs:
            errs.append(f"uses the vague word {word!r} without a definition; add it under 'definitions:'")
    nodes = [p.source for p in params if p.source] + [n for _, n in program] + list(constraints)
    relative = any(FUNCTIONS[f].relative for n in nodes for f in calls_in(n) if f in FUNCTIONS)
    t = Template(
        id=str(rec["id"]),
        mapwise=mapwise,
        answer_type=rec["answer_type"],
        map_types=map_types,
        params=params,
        text=variants,
        program=tuple(program),
        constraints=constraints,
        uses=uses,
        notes=str(rec.get("notes") or ""),
        tags=tuple(rec.get("tags") or ()),
        source=source,
        relative=relative,
    )
    return t, errs


def _check_call(node: Node, defined: list[str], where: str) -> list[str]:
    errs = []
    if node[0] == "ref" and node[1] not in defined:
        errs.append(f"{where} references unknown parameter or step {node[1]!r}; defined here: {', '.join(defined) or 'none'}")
    if node[0] == "call":
        fn = FUNCTIONS.get(node[1])
        if fn is None:
            errs.append(f"{where} calls unknown function {node[1]!r}; valid functions: {', '.join(sorted(FUNCTIONS))}")
        elif len(node[2]) != len(fn.args):
            errs.append(f"{where}: {node[1]}() takes {len(fn.args)} arguments ({', '.join(fn.args) or 'none'}), got {len(node[2])}")
        for a in node[2]:
            errs += _check_call(a, defined, where)
    return errs


def _check_names(params: tuple[Param, ...], program: list, constraints: tuple) -> list[str]:
    errs: list[str] = []
    defined: list[str] = []
    for p in params:
        if p.source is not None:
            errs += _check_call(p.source, defined, f"parameter {p.name!r}")
        defined.append(p.name)
    for name, node in program:
        errs += _check_call(node, defined, f"step {name!r}")
        defined.append(name)
    for c in constraints:
        errs += _check_call(c, defined, "constraint")
    return errs


_JINJA_VAR = re.compile(r"{{\s*([A-Za-z_]\w*)")


def _check_text(params: tuple[Param, ...], variants: dict[str, tuple[str, ...]]) -> list[str]:
    from mapgen.questions.engine import TEXT_GLOBALS

    names = {p.name for p in params} | set(TEXT_GLOBALS)
    names |= {f"{p.name}_{end}" for p in params if p.type == "LegendClass" for end in ("low", "high")}
    errs = []
    for mt, texts in variants.items():
        for t in texts:
            for var in _JINJA_VAR.findall(t):
                if var not in names:
                    errs.append(
                        f"text ({mt}) uses unknown parameter {var!r}; valid: {', '.join(sorted(names))}"
                    )
    return errs
