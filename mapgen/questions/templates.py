"""Question templates as data: loading, parsing programs, and linting template files.

A template file is YAML: ``definitions`` (vague words → their written definition) and ``templates``, a list of
records::

    - id: state_in_range            # unique id
      mapwise: 9                    # MAPWise template number (1-43) or null for user templates
      answer_type: binary           # binary | single | count | list | range | ranking
      vqa_type: colour              # VRSBench VQA type (default: by answer_type, see ANSWER_TYPE_VQA)
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
      mapwise_wordings:             # MAPWise's own wordings, read back by mapgen.recheck.parse
        - "Does [the value of ]{{ X }}[ state] (fall|lie) in[to] [the ][range ]{{ Y }}?"

Parameters: a type name, or ``{type: T, from: <call>, values: [...], prefer_first: p, min_members: n}``.
``from`` computes the candidates (it may use earlier parameters); ``prefer_first`` picks the first candidate
with probability p (domain helpers order yes-answers first so binary questions can be balanced).

A MAPWise wording is text with ``{{ P }}`` slots (``{{ D | most }}`` = "north-most", ``{{ R | adjective }}`` =
"western"; ``{{ Y_low }}``/``{{ Y_high }}`` = the ends of a legend range; ``{{ states }}`` = the region word),
``[optional text]`` and ``(one|other)`` alternatives; trailing punctuation is ignored. As a mapping it may add
``map_types``, ``fixed`` values, ``choices`` (written words -> parameter value), ``implied`` parameters
(``{P: "{{ X }}"}`` or ``{P: {as: "bordering {{ X }}", said: "bordering it"}}``), ``loose`` slots (any text,
resolved by type), ``drop`` (parameters the wording leaves out), ``yes_if`` and a ``note``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mapgen.questions.functions import FUNCTIONS
from mapgen.questions.packs import (
    Pack,
    PackError,
    builtin_pack,
    import_functions,
    is_builtin_file,
    open_pack,
    pack_readings,
    read_yaml,
)
from mapgen.questions.record import ANSWER_TYPES
from mapgen.questions.sandbox import TextSandbox, text_problems
from mapgen.questions.typecheck import check_template_types, unknown_keys
from mapgen.resources import template_path
from mapgen.suggest import did_you_mean

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
    "id", "mapwise", "answer_type", "vqa_type", "map_types", "params", "text", "mapwise_wordings", "program",
    "constraints", "uses", "notes", "tags", "reads_as",
}  # fmt: skip
#: Names a template text may use besides its parameters: the atlas's region word.
TEXT_GLOBALS = ("state", "states", "State", "States")
#: VRSBench's VQA question types (the skill a question tests).
VQA_TYPES: tuple[str, ...] = (
    "category", "presence", "quantity", "colour", "shape", "size", "position", "direction", "scene", "reasoning",
)  # fmt: skip
#: VQA type of a template without ``vqa_type`` (and of a record of no known template), by answer type.
ANSWER_TYPE_VQA: dict[str, str] = {
    "count": "quantity", "binary": "reasoning", "single": "category", "list": "category", "range": "colour",
    "ranking": "reasoning",
}  # fmt: skip
PARAM_KEYS = {"type", "from", "values", "prefer_first", "min_members"}
FILE_KEYS = {"definitions", "templates"}
WORDING_KEYS = {"text", "map_types", "fixed", "choices", "implied", "loose", "drop", "yes_if", "note"}
#: Slot filters of a MAPWise wording -> the parameter type they apply to.
WORDING_FILTERS = {"most": "Direction", "adjective": "RegionGroup"}
RANGE_ENDS = ("low", "high")


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
        if not m or m.end() == pos or m.lastgroup is None:
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


_WORDING_TOKEN = re.compile(
    r"{{\s*(?P<slot>\w+)\s*(?:\|\s*(?P<filter>\w+)\s*)?}}|(?P<op>[\[\]()|])|(?P<lit>[^{\[\]()|]+|{)"
)
_WORDING_OPS = {"[": "(?:", "]": ")?", "(": "(?:", ")": ")", "|": "|"}


@dataclass(frozen=True)
class Wording:
    """One of MAPWise's wordings of a template (see the module docstring for the syntax)."""

    text: str
    map_types: tuple[str, ...] = MAP_TYPES
    fixed: dict[str, Any] = field(default_factory=dict)
    choices: dict[str, dict[str, str]] = field(default_factory=dict)  # param -> written words -> value
    implied: dict[str, tuple[str, str]] = field(default_factory=dict)  # param -> (phrase, how the reading shows it)
    loose: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    yes_if: str | None = None
    note: str = ""

    def slots(self) -> list[tuple[str, str]]:
        """``(name, filter)`` of every ``{{ slot }}`` in order."""
        return [(m["slot"], m["filter"] or "") for m in _WORDING_TOKEN.finditer(self.text) if m["slot"]]

    def pattern(self, slot: Callable[[str, str], str]) -> str:
        """The wording as a regular expression; ``slot(name, filter)`` gives each slot's pattern."""
        out = []
        for m in _WORDING_TOKEN.finditer(re.sub(r"[\s?.!]+$", "", self.text)):
            if m["slot"]:
                out.append(slot(m["slot"], m["filter"] or ""))
            elif m["op"]:
                out.append(_WORDING_OPS[m["op"]])
            else:
                out.append(re.escape(m["lit"]))
        return "".join(out)


@dataclass
class Template:
    """One question template (see the module docstring for the file format)."""

    id: str
    mapwise: int | None
    answer_type: str
    vqa_type: str
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
    wordings: tuple[Wording, ...] = ()
    #: Declared readings its wording names (axis -> reading, ``templates/readings.yaml``): not re-checked.
    reads_as: dict[str, str] = field(default_factory=dict, compare=False)
    translations: dict[str, Any] = field(default_factory=dict, compare=False)  # language code -> a pack's texts
    _compiled: dict[str, list[Any]] = field(default_factory=dict, repr=False, compare=False)

    def applies_to(self, map_type: str) -> bool:
        return map_type in self.map_types

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``mapgen templates show``)."""
        return {
            "id": self.id,
            "mapwise": self.mapwise,
            "answer_type": self.answer_type,
            "vqa_type": self.vqa_type,
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
            "mapwise_wordings": [w.text for w in self.wordings],
            "program": [{name: node_text(node)} for name, node in self.program],
            "constraints": [node_text(c) for c in self.constraints],
            "uses": list(self.uses),
            **({"reads_as": dict(self.reads_as)} if self.reads_as else {}),
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

    def vqa_types(self) -> dict[str, str]:
        """VRSBench VQA type by template id and by MAPWise number (as text)."""
        out = {t.id: t.vqa_type for t in self.templates}
        for t in self.templates:
            if t.mapwise is not None:
                out.setdefault(str(t.mapwise), t.vqa_type)
        return out

    def vqa_type(self, question: Any) -> str:
        """VQA type of a question record (Question or dict): by template id, MAPWise number, else answer type."""
        q = question if isinstance(question, Mapping) else vars(question)
        types = self.vqa_types()
        for key in ("template_id", "mapwise_template", "template_no"):  # template_no: MAPWise's own files
            if q.get(key) is not None and str(q[key]) in types:
                return types[str(q[key])]
        if q.get("answer_type") in ANSWER_TYPE_VQA:
            return ANSWER_TYPE_VQA[q["answer_type"]]
        raise ValueError(
            f"Cannot type question {q.get('question_id')!r}: no known template or MAPWise template number and "
            f"answer_type {q.get('answer_type')!r} is not one of {', '.join(ANSWER_TYPE_VQA)}."
        )


# ---------------------------------------------------------------------------------------------- loading


def builtin_files() -> list[Any]:
    """The template files shipped with mapgen (the built-in pack's)."""
    return list(builtin_pack().template_files)


_BUILTIN: TemplateSet | None = None


def load_templates(paths: str | Path | Iterable[str | Path] | None = None, *, builtin: bool = False) -> TemplateSet:
    """Load template packs (folders or YAML files, see :mod:`mapgen.questions.packs`; default: mapgen's built-in
    pack); raises TemplateError naming every problem, one a line. The built-in definitions are known to every
    pack; ``builtin=True`` adds the built-in templates in front (ids must then be unique across all)."""
    global _BUILTIN
    if paths is None or (builtin and not isinstance(paths, (str, Path)) and not list(paths)):
        if _BUILTIN is None:
            _BUILTIN = _checked([builtin_pack()])
        return _BUILTIN
    return _checked(open_packs(paths), load_templates(), builtin)


def open_packs(paths: str | Path | Iterable[str | Path]) -> list[Pack]:
    """The packs at ``paths`` (a TemplateError names a path that is none)."""
    try:
        return [open_pack(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    except PackError as exc:
        raise TemplateError(str(exc)) from None


def _checked(packs: list[Pack], base: TemplateSet | None = None, include_base: bool = False) -> TemplateSet:
    problems, result = check_packs(packs, base, include_base)
    if problems:
        raise TemplateError("\n".join(problems))
    return result


def lint_packs(paths: Iterable[str | Path]) -> tuple[list[Pack], list[str]]:
    """The packs at ``paths`` and every problem found loading them as a build would (with the built-in pack;
    a built-in template file named here is the built-in pack itself): one ``file: template id: problem`` line
    each. This is the same check :func:`load_templates` makes."""
    packs = [builtin_pack() if is_builtin_file(p) else open_pack(p) for p in paths]
    if any(p.builtin for p in packs):
        return packs, check_packs(packs)[0]
    return packs, check_packs(packs, load_templates(), include_base=True)[0]


def check_packs(packs: Iterable[Pack], base: TemplateSet | None = None,
                include_base: bool = False) -> tuple[list[str], TemplateSet]:
    """Every problem of ``packs`` (``file: problem`` lines) and the templates that passed; ``base``'s
    definitions are known to them, and with ``include_base`` its templates come first and count for
    duplicate ids."""
    templates = list(base) if base is not None and include_base else []
    definitions = dict(base.definitions) if base is not None else {}
    owners = {t.id: t.source for t in templates}
    problems: list[str] = []
    for pack in packs:
        problems += [f"{pack.functions}: {p}" for p in import_functions(pack)]
        problems += [f"{pack.readings}: {p}" for p in pack_readings(pack)]
        own: list[Template] = []
        for f in pack.template_files:
            source = f.name if pack.builtin else str(f)
            try:
                data = read_yaml(f)
            except PackError as exc:
                problems.append(f"{source}: {exc}")
                continue
            errs, parsed, defs = check_data(data, source, known_definitions=definitions)
            definitions.update(defs)
            problems += [f"{source}: {e}" for e in errs]
            for t in parsed:
                if t.id in owners:
                    problems.append(f"{source}: template {t.id}: id also defined in {owners[t.id]}; rename one")
                else:
                    owners[t.id] = source
                    own.append(t)
        problems += pack_texts(pack, own)
        templates += own
    return problems, TemplateSet(templates, definitions)


def pack_texts(pack: Pack, templates: list[Template]) -> list[str]:
    """Read a pack's ``lang/<code>.yaml`` files into its templates' ``translations``; the problems found."""
    problems = []
    for code, f in pack.lang_files:
        where = f"{f}"
        try:
            lang = load_language(code)
            texts = _pack_lang_texts(read_yaml(f))
        except (TemplateError, PackError) as exc:
            problems.append(f"{where}: {exc}")
            continue
        ids = [t.id for t in templates]
        problems += [f"{where}: text for unknown template {i!r}{did_you_mean(i, ids)}" for i in texts if i not in ids]
        for t in templates:
            if t.id not in texts:
                problems.append(f"{where}: template {t.id}: no {lang.name} text; add one under its id (a {code} "
                                "build would skip the template)")
                continue
            t.translations[code] = texts[t.id]
            problems += [f"{where}: template {t.id}: {e}" for e in _check_translation(lang, t)]
    return problems


def _pack_lang_texts(data: Any) -> dict[str, Any]:
    """The texts of a pack's language file: ``{templates: {id: texts}}`` or the mapping ``{id: texts}``."""
    if isinstance(data, dict) and isinstance(data.get("templates"), dict):
        extra = unknown_keys(data, {"language", "templates"}, "the file")
        if extra:
            raise TemplateError("; ".join(extra))
        data = data["templates"]
    if not isinstance(data, dict):
        raise TemplateError("a pack's language file maps template ids to their texts (a list, or per map type)")
    return {str(k): v for k, v in data.items()}


def lint_file(path: str | Path) -> list[str]:
    """Problems found in a template file or pack (empty when it is valid), or in a language file. Built-in
    definitions count as defined; ids are checked within the file (``mapgen templates lint`` also checks them
    against the built-in templates)."""
    try:
        pack = open_pack(path)
        data = read_yaml(pack.template_files[0])
    except PackError as exc:
        return [str(exc)]
    if isinstance(data, dict) and "language" in data and not pack.lang_files:
        return lint_language_file(path)
    if is_builtin_file(path):
        return check_packs([builtin_pack()])[0]
    return check_packs([pack], load_templates())[0]


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
    problems: list[str] = unknown_keys(data, FILE_KEYS, "the file")
    out: list[Template] = []
    first: dict[str, int] = {}
    for i, rec in enumerate(data["templates"]):
        tid = rec.get("id", f"#{i}") if isinstance(rec, dict) else f"#{i}"
        where = f"template {tid}"
        if str(tid) in first:
            problems.append(f"{where}: id used twice in this file (records #{first[str(tid)] + 1} and #{i + 1}); "
                            "rename one")
            continue
        first[str(tid)] = i
        try:
            t, errs = _template(rec, source, known)
        except TemplateError as exc:
            problems.append(f"{where}: {exc}")
            continue
        problems.extend(f"{where}: {e}" for e in errs)
        if not errs:
            out.append(t)
    return problems + _check_vqa_numbers(out), out, defs


def _param(name: str, spec: Any) -> Param:
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict) or "type" not in spec:
        raise TemplateError(f"parameter {name!r} needs a type (one of {', '.join(PARAM_TYPES)})")
    ptype = spec["type"]
    if ptype not in PARAM_TYPES:
        raise TemplateError(f"parameter {name!r} has unknown type {ptype!r}{did_you_mean(ptype, PARAM_TYPES)}")
    problems = unknown_keys(spec, PARAM_KEYS, f"parameter {name!r}")
    if problems:
        raise TemplateError("; ".join(problems))
    values = tuple(spec.get("values") or DEFAULT_VALUES.get(ptype) or ())
    if ptype == "Choice" and not values:
        raise TemplateError(f"Choice parameter {name!r} needs 'values'")
    source = parse_expr(spec["from"]) if spec.get("from") else None
    refs = tuple(dict.fromkeys(refs_in(source))) if source else ()
    return Param(
        name, ptype, source, values, float(spec.get("prefer_first", 0.0)), int(spec.get("min_members", 2)), refs
    )


def _template(rec: Any, source: str, known_defs: dict[str, str]) -> tuple[Template, list[str]]:
    """One template record and the problems found in it."""
    errs = _check_keys(rec)
    if errs:
        return None, errs  # type: ignore[return-value]
    map_types = _listed(rec, "map_types") or MAP_TYPES
    params = tuple(_param(str(k), v) for k, v in (rec.get("params") or {}).items())
    program, errs = _program(rec["program"])
    t = _build(rec, source, map_types, params, program)
    errs += _check_fields(rec, map_types, t.text)
    errs += _check_names(params, program, t.constraints)
    errs += _check_text(params, t.text)
    errs += [f"uses the vague word {w!r} without a definition; add it under 'definitions:'"
             for w in t.uses if w not in known_defs]
    if not errs:
        errs += check_template_types(params, program, t.constraints, t.answer_type)
    errs += [e for w in t.wordings for e in _check_wording(w, params, map_types)]
    errs += _check_reads_as(t)
    return t, errs


def _listed(rec: dict[str, Any], key: str) -> tuple[Any, ...]:
    return tuple(rec.get(key) or ())


def _build(
    rec: dict[str, Any], source: str, map_types: tuple[str, ...], params: tuple[Param, ...], program: list
) -> Template:
    """The Template of a record whose keys are present (problems are checked separately)."""
    constraints = tuple(parse_expr(c) for c in _listed(rec, "constraints"))
    nodes = [p.source for p in params if p.source] + [n for _, n in program] + list(constraints)
    return Template(
        id=str(rec["id"]),
        mapwise=rec.get("mapwise"),
        answer_type=rec["answer_type"],
        vqa_type=str(rec.get("vqa_type") or ANSWER_TYPE_VQA.get(rec["answer_type"], "")),
        map_types=map_types,
        params=params,
        text=_variants(rec["text"], map_types),
        program=tuple(program),
        constraints=constraints,
        uses=_listed(rec, "uses"),
        notes=str(rec.get("notes") or ""),
        tags=_listed(rec, "tags"),
        source=source,
        relative=any(FUNCTIONS[f].relative for n in nodes for f in calls_in(n) if f in FUNCTIONS),
        wordings=tuple(_wording(w, map_types) for w in _listed(rec, "mapwise_wordings")),
        reads_as={str(k): str(v) for k, v in (rec.get("reads_as") or {}).items()},
    )


def _check_reads_as(t: Template) -> list[str]:
    """Each axis a template's wording names must be declared, with a reading of that name."""
    from mapgen.questions.readings import axes

    known = axes()
    errs = []
    for name, reading in t.reads_as.items():
        if name not in known:
            errs.append(f"reads_as names the unknown reading axis {name!r}; declared: {', '.join(sorted(known))}")
        elif reading not in known[name].names:
            errs.append(f"reads_as: axis {name!r} has no reading {reading!r}; its readings: "
                        f"{', '.join(known[name].names)}")
    return errs


def _check_keys(rec: Any) -> list[str]:
    if not isinstance(rec, dict):
        raise TemplateError("each template must be a mapping")
    errs = unknown_keys(rec, TEMPLATE_KEYS, "the record")
    return errs + [f"missing '{key}'" for key in ("id", "answer_type", "text", "program") if key not in rec]


def _variants(text: Any, map_types: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    if isinstance(text, list):
        return {mt: tuple(text) for mt in map_types}
    return {str(k): tuple(v) for k, v in text.items()}


def _program(steps: list[Any]) -> tuple[list[tuple[str, Node]], list[str]]:
    """Program steps ``name: call`` as (name, node), with the problems found."""
    program, errs = [], []
    for step in steps:
        if not isinstance(step, dict) or len(step) != 1:
            errs.append(f"program steps must be one 'name: call' mapping each, got {step!r}")
            continue
        ((name, expr),) = step.items()
        program.append((str(name), parse_expr(expr)))
    if program and program[-1][0] != "answer" and "answer" not in dict(program):
        errs.append("the program needs a step named 'answer'")
    return program, errs


def _check_fields(rec: dict[str, Any], map_types: tuple[str, ...], variants: dict[str, tuple[str, ...]]) -> list[str]:
    errs = []
    if rec["answer_type"] not in ANSWER_TYPES:
        errs.append(f"unknown answer_type {rec['answer_type']!r}{did_you_mean(rec['answer_type'], ANSWER_TYPES)}")
    if rec.get("vqa_type") is not None and rec["vqa_type"] not in VQA_TYPES:
        errs.append(f"unknown vqa_type {rec['vqa_type']!r}{did_you_mean(rec['vqa_type'], VQA_TYPES)}")
    if isinstance(rec["text"], dict):
        errs += unknown_keys(rec["text"], map_types, "text")
    mapwise = rec.get("mapwise")
    if mapwise is not None and not (isinstance(mapwise, int) and 1 <= mapwise <= 43):
        errs.append(f"mapwise must be a MAPWise template number 1-43, got {mapwise!r}")
    errs += [f"unknown map type {mt!r}{did_you_mean(mt, MAP_TYPES)}" for mt in map_types if mt not in MAP_TYPES]
    return errs + [f"no text variants for map type {mt!r}; add a text: variant for it" for mt in map_types
                   if not variants.get(mt)]


def _check_vqa_numbers(templates: list[Template]) -> list[str]:
    """Templates sharing a MAPWise number share its VQA type."""
    by_number: dict[int, set[str]] = {}
    for t in templates:
        if t.mapwise is not None:
            by_number.setdefault(t.mapwise, set()).add(t.vqa_type)
    return [f"templates of MAPWise number {n} have different vqa_types {sorted(v)}"
            for n, v in sorted(by_number.items()) if len(v) > 1]


# ---------------------------------------------------------------------------------------------- wordings


def _wording(spec: Any, map_types: tuple[str, ...]) -> Wording:
    """A ``mapwise_wordings`` entry: its text, or a mapping with ``text`` and the keys in WORDING_KEYS."""
    if isinstance(spec, str):
        return Wording(spec, map_types)
    if not isinstance(spec, dict) or "text" not in spec:
        raise TemplateError(f"a MAPWise wording is a text or a mapping with 'text', got {spec!r}")
    unknown = unknown_keys(spec, WORDING_KEYS, f"MAPWise wording {spec['text']!r}")
    if unknown:
        raise TemplateError("; ".join(unknown))
    implied = {str(k): (v, "(implied)") if isinstance(v, str) else (str(v["as"]), str(v.get("said", "(implied)")))
               for k, v in (spec.get("implied") or {}).items()}
    return Wording(
        text=str(spec["text"]),
        map_types=tuple(spec.get("map_types") or map_types),
        fixed=dict(spec.get("fixed") or {}),
        choices={str(k): {str(a): str(b) for a, b in v.items()} for k, v in (spec.get("choices") or {}).items()},
        implied=implied,
        loose=tuple(spec.get("loose") or ()),
        drop=tuple(spec.get("drop") or ()),
        yes_if=spec.get("yes_if"),
        note=str(spec.get("note") or ""),
    )


def range_end(name: str, types: Mapping[str, str]) -> str | None:
    """``Y`` for a slot ``Y_low``/``Y_high`` when Y is a LegendClass parameter."""
    base, _, end = name.rpartition("_")
    return base if end in RANGE_ENDS and types.get(base) == "LegendClass" else None


def _check_wording(w: Wording, params: tuple[Param, ...], map_types: tuple[str, ...]) -> list[str]:
    where = f"MAPWise wording {w.text!r}"
    types = {p.name: p.type for p in params}
    errs, given = _check_slots(w, types)
    errs += _check_wording_keys(w, params)
    missing = [p for p in types if p not in given | set(w.fixed) | set(w.implied) | set(w.drop)]
    if missing:
        errs.append(f"does not give {', '.join(missing)} (write it as a slot, or list it under fixed/implied/drop)")
    errs += [f"unknown map type {mt!r} (the template is asked on {', '.join(map_types)})"
             for mt in w.map_types if mt not in map_types]
    try:
        re.compile(w.pattern(lambda name, _: r"\w+" if name in TEXT_GLOBALS else f"(?P<{name}>.+?)"))
    except re.error as exc:
        errs.append(f"is not a valid wording ({exc})")
    return [f"{where} {e}" for e in errs]


def _check_slots(w: Wording, types: Mapping[str, str]) -> tuple[list[str], set[str]]:
    """Problems with the slots of a wording, and the parameters they give."""
    errs, given, seen = [], set(), []
    for name, flt in w.slots():
        if name in TEXT_GLOBALS:
            continue
        param = name if name in types else range_end(name, types)
        if param is None:
            errs.append(f"uses unknown parameter {name!r}; valid: {', '.join(types) or 'none'}")
        elif flt and WORDING_FILTERS.get(flt) != types[param]:
            errs.append(f"applies filter {flt!r} to {name!r}; filters: "
                        + ", ".join(f"{f} ({t})" for f, t in WORDING_FILTERS.items()))
        if name in seen:
            errs.append(f"uses {name!r} twice")
        seen.append(name)
        given.add(param or name)
    for base in {range_end(n, types) for n in seen if n not in types} - {None}:
        if not {f"{base}_{end}" for end in RANGE_ENDS} <= set(seen):
            errs.append(f"writes {base!r} by its ends: it needs both {base}_low and {base}_high")
    return errs, given


def _check_wording_keys(w: Wording, params: tuple[Param, ...]) -> list[str]:
    names = {p.name: p for p in params}
    errs = []
    for key, used in (("fixed", w.fixed), ("choices", w.choices), ("implied", w.implied), ("loose", w.loose),
                      ("drop", w.drop)):
        unknown = sorted(set(used) - set(names))
        if unknown:
            errs.append(f"{key} names unknown parameters {unknown}")
    for name, table in w.choices.items():
        bad = sorted(set(table.values()) - set(names[name].values)) if name in names else []
        if bad and names[name].values:
            errs.append(f"choices for {name!r} give {bad}, not values of {name!r}")
    for phrase, _ in w.implied.values():
        unknown = sorted({m["slot"] for m in _WORDING_TOKEN.finditer(phrase) if m["slot"]} - set(names))
        if unknown:
            errs.append(f"implied phrase {phrase!r} names unknown parameters {unknown}")
    return errs


def _check_call(node: Node, defined: list[str], where: str) -> list[str]:
    errs = []
    if node[0] == "ref" and node[1] not in defined:
        errs.append(f"{where} references unknown parameter or step {node[1]!r}; defined here: {', '.join(defined) or 'none'}")
    if node[0] == "call":
        fn = FUNCTIONS.get(node[1])
        if fn is None:
            errs.append(f"{where} calls unknown function {node[1]!r}; valid functions: {', '.join(sorted(FUNCTIONS))}")
        elif not fn.takes(len(node[2])):
            errs.append(f"{where}: {node[1]}() takes {fn.arity()}, got {len(node[2])}")
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
    names = {p.name for p in params} | set(TEXT_GLOBALS)
    names |= {f"{p.name}_{end}" for p in params if p.type == "LegendClass" for end in ("low", "high")}
    errs = []
    for mt, texts in variants.items():
        for t in texts:
            errs += [f"text ({mt}): {problem}" for problem in text_problems(t, names)]
            for var in _JINJA_VAR.findall(t):
                if var not in names:
                    errs.append(
                        f"text ({mt}) uses unknown parameter {var!r}; valid: {', '.join(sorted(names))}"
                    )
    return errs


# ---------------------------------------------------------------------------------------------- languages

#: Keys of a language file (``templates/lang/<code>.yaml``; see its header).
LANGUAGE_KEYS = {
    "language", "name", "region_words", "words", "filters", "group_forms", "answers", "none", "replace", "templates",
}  # fmt: skip
#: Forms a group takes in a language (``{name}`` = the group's name in the language); ``default`` is required.
GROUP_FORMS = ("bordering", "lake", "default")
_PLAIN_SLOT = r"{{{{\s*{}\s*}}}}"
_FILTERED_SLOT = r"{{{{\s*{}\s*\|\s*(\w+)\s*}}}}"


@dataclass
class Language:
    """The question texts of every template in one language, and how parameter values, region words and groups
    are written in it (a file ``templates/lang/<code>.yaml``)."""

    code: str
    name: str
    region_words: dict[str, dict[str, str]]
    words: dict[str, str]
    filters: dict[str, dict[str, str]]
    group_forms: dict[str, str]
    answers: dict[str, tuple[str, ...]]
    none: tuple[str, ...]
    replace: dict[str, str]
    texts: dict[str, Any]  # template id -> text variants (a list, or per map type)
    source: str = ""
    env: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.env = TextSandbox(self.words, self.filters)

    def variants(self, template: Template) -> dict[str, tuple[str, ...]]:
        """The template's text variants in this language, by map type (its pack's texts, else this file's)."""
        texts = template.translations.get(self.code)
        return _variants(self.texts[template.id] if texts is None else texts, template.map_types)

    def has_text(self, template: Template) -> bool:
        """Whether the template can be asked in this language (its pack or this file has its texts)."""
        return self.code in template.translations or template.id in self.texts

    def region_word(self, word: str) -> tuple[str, str]:
        """(singular, plural) of an atlas's region word (``state``) in this language."""
        forms = self.region_words.get(word) or self.region_words.get("region") or {"state": word, "states": word}
        return forms["state"], forms["states"]

    def group_phrase(self, form: str, name: str) -> str:
        """A group written after (or before) the region word: ``form`` is one of :data:`GROUP_FORMS`."""
        return (self.group_forms.get(form) or self.group_forms["default"]).replace("{name}", name)

    def finish(self, text: str) -> str:
        """A rendered text with the language's contractions applied (``de el`` -> ``del``)."""
        for old, new in self.replace.items():
            text = text.replace(old, new)
        return text


def language_files() -> list[Any]:
    """The language files shipped with mapgen (``templates/lang/*.yaml``)."""
    folder = template_path("lang")
    return sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)


def language_codes() -> list[str]:
    """Codes of the shipped languages besides English."""
    return [f.name[: -len(".yaml")] for f in language_files()]


def _texts(data: dict[str, Any], key: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in (data.get(key) or {}).items()}


def _tables(data: dict[str, Any], key: str) -> dict[str, dict[str, str]]:
    return {str(k): {str(a): str(b) for a, b in v.items()} for k, v in (data.get(key) or {}).items()}


def _read_language(data: Any, source: str) -> Language:
    if not isinstance(data, dict) or not isinstance(data.get("templates"), dict) or "language" not in data:
        raise TemplateError(f"{source}: a language file needs 'language:' and a 'templates:' mapping (id -> texts)")
    unknown = sorted(set(data) - LANGUAGE_KEYS)
    if unknown:
        raise TemplateError(f"{source}: unknown keys {unknown}; valid keys: {sorted(LANGUAGE_KEYS)}")
    return Language(
        code=str(data["language"]),
        name=str(data.get("name") or data["language"]),
        region_words=_tables(data, "region_words"),
        words=_texts(data, "words"),
        filters=_tables(data, "filters"),
        group_forms=_texts(data, "group_forms"),
        answers={str(k): tuple(map(str, v)) for k, v in (data.get("answers") or {}).items()},
        none=tuple(map(str, data.get("none") or ())),
        replace=_texts(data, "replace"),
        texts=dict(data["templates"]),
        source=source,
    )


_LANGUAGES: dict[str, Language] = {}


def load_language(code: str) -> Language:
    """A shipped language by code (``hi``, ``zh``, ``es``); a TemplateError names the choices."""
    if code not in _LANGUAGES:
        files = {f.name[: -len(".yaml")]: f for f in language_files()}
        if code not in files:
            raise TemplateError(f"no question texts in language {code!r}; languages: en, {', '.join(files)}")
        data = yaml.safe_load(files[code].read_text(encoding="utf-8"))
        _LANGUAGES[code] = _read_language(data, files[code].name)
    return _LANGUAGES[code]


def lint_language(lang: Language, templates: Iterable[Template]) -> list[str]:
    """Problems of a language file against ``templates``: every template covered with the same map types and
    number of variants, every text valid in the sandbox, every value a text prints worded, the forms present."""
    templates = list(templates)
    ids = {t.id for t in templates}
    errs = [f"template {i!r} is not a template id (unknown template)" for i in sorted(set(lang.texts) - ids)]
    errs += [f"no {lang.name} text for template {t.id!r}" for t in templates if t.id not in lang.texts]
    for t in templates:
        if t.id in lang.texts:
            errs += [f"template {t.id}: {e}" for e in _check_translation(lang, t)]
    if "default" not in lang.group_forms:
        errs.append("group_forms needs a 'default' form")
    errs += [f"group form {k!r} must contain {{name}}" for k, v in lang.group_forms.items() if "{name}" not in v]
    errs += [f"region word {k!r} needs 'state' and 'states'" for k, v in lang.region_words.items()
             if not {"state", "states"} <= set(v)]
    return errs


def _check_translation(lang: Language, t: Template) -> list[str]:
    try:
        variants = lang.variants(t)
    except (AttributeError, TypeError):
        return ["texts must be a list or a mapping of map type -> list"]
    errs = [f"map types {sorted(variants)} differ from the template's {sorted(t.text)}"
            for _ in [0] if set(variants) != set(t.text)]
    for mt, texts in t.text.items():
        if mt in variants and len(variants[mt]) != len(texts):
            errs.append(f"{len(variants[mt])} {mt} variants, the template has {len(texts)}")
    names = {p.name for p in t.params} | set(TEXT_GLOBALS)
    names |= {f"{p.name}_{end}" for p in t.params if p.type == "LegendClass" for end in RANGE_ENDS}
    for mt, texts in variants.items():
        for text in texts:
            errs += [f"text ({mt}): {e}" for e in text_problems(text, names, lang.env)]
            errs += [f"text ({mt}) uses unknown parameter {v!r}" for v in _JINJA_VAR.findall(text) if v not in names]
            errs += _unworded(lang, t, text)
    return errs


def _unworded(lang: Language, t: Template, text: str) -> list[str]:
    """Values a text prints (``{{ P }}`` or ``{{ P | table }}``) that the language does not word."""
    errs = []
    for p in t.params:
        if not p.values or p.type in ("N", "Number"):
            continue
        tables = []
        if re.search(_PLAIN_SLOT.format(re.escape(p.name)), text):
            tables.append(("words", lang.words))
        tables += [(f, lang.filters[f]) for f in re.findall(_FILTERED_SLOT.format(re.escape(p.name)), text)
                   if f in lang.filters]
        for where, table in tables:
            missing = [v for v in p.values if str(v) not in table]
            if missing:
                errs.append(f"{where} does not word {missing} (values of {p.name})")
    return errs


def lint_language_file(path: str | Path) -> list[str]:
    """Problems found in a language file, checked against mapgen's templates."""
    try:
        lang = _read_language(yaml.safe_load(Path(path).read_text(encoding="utf-8")), str(path))
    except yaml.YAMLError as exc:
        return [f"not valid YAML: {exc}"]
    except TemplateError as exc:
        return [str(exc)]
    return lint_language(lang, load_templates())
