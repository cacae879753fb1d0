"""Benchmark build configuration: a YAML file validated with pydantic, every problem reported with its path.

A config names the countries and how many maps each gets, where statistics come from (curated tables, user
files, seeded synthetic tables), the legend and style choices maps draw from, the image variants, the
counterfactual set, the questions per image, the tasks, the train/test split and the global seed.
Packaged configs (``mapwise``, ``small``) are found by name.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections import Counter
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticUndefined

from mapgen.page import MAX_PX, MIN_PX
from mapgen.resources import config_path, template_path
from mapgen.yamlio import YAMLFileError, load_yaml, read_text_file, yaml_problem

CounterfactualKind = Literal["original", "imaginary", "shuffled", "jumbled"]
COUNTERFACTUAL_KINDS: tuple[CounterfactualKind, ...] = ("original", "imaginary", "shuffled", "jumbled")
#: The tasks a config builds when it names none (registered names, :mod:`mapgen.tasks`).
TASKS = ("vqa", "caption", "grounding")
#: Upper bounds that keep a mistyped number from running for days or filling the disk.
MAX_MAPS = 100_000
MAX_QUESTIONS = 1_000
MAX_TABLES = 100_000
MAX_SEED = 2**32 - 1
"""The largest seed (numpy's legacy seed range; seeds are never negative)."""
MAX_WORKERS = 64
"""The most worker processes a build starts (``--workers``)."""


class ConfigError(ValueError):
    """An invalid build config; the message lists every problem with its path in the YAML."""


def _wrong_type(needs: str, value: Any, fix: str) -> ValueError:
    return ValueError(f"needs {needs}, got {json.dumps(value, default=str)}; {fix}")


def _whole_number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _wrong_type("a whole number", value, "write a number without quotes or decimals, e.g. 10")
    return value


def _true_or_false(value: Any) -> Any:
    if not isinstance(value, bool):
        raise _wrong_type("true or false", value, "write true or false without quotes")
    return value


def _number(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _wrong_type("a number", value, "write a number without quotes, e.g. 0.5")
    return value


def _listed(values: list[Any]) -> list[Any]:
    if not values:
        raise ValueError("needs at least one value; list one, or leave the key out for the default")
    return values


#: Field types that refuse what lax pydantic would convert (``maps: true`` as one map, ``hatched: 0``, ``"10"``)
#: and lists of choices left empty (nothing to draw from).
WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
TrueOrFalse = Annotated[bool, BeforeValidator(_true_or_false)]
Number = Annotated[float, BeforeValidator(_number)]
NonEmpty = AfterValidator(_listed)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SyntheticSource(Strict):
    """Seeded synthetic tables (fresh, never-published values)."""

    count: WholeNumber = Field(0, ge=0, le=MAX_TABLES)
    distributions: Annotated[list[Literal["uniform", "normal", "lognormal", "heavy_tailed", "bimodal"]],
                             NonEmpty] = ["lognormal"]
    spatial: Annotated[list[Number], NonEmpty] = [0.0, 0.5, 0.9]
    kinds: Annotated[list[Literal["absolute", "percent"]], NonEmpty] = ["absolute", "percent"]

    @field_validator("spatial")
    @classmethod
    def _spatial_range(cls, values: list[float]) -> list[float]:
        bad = [v for v in values if not 0.0 <= v <= 1.0]
        if bad:
            raise ValueError(f"spatial knobs must lie in [0, 1], got {bad}")
        return values


class StatisticSources(Strict):
    """Where a country's statistics come from; maps cycle through curated, file and synthetic tables."""

    curated: Literal["all"] | list[str] = "all"
    files: list[str] = []
    synthetic: SyntheticSource = SyntheticSource()


class CountryConfig(Strict):
    """One country of the build: a built-in atlas name or a vector file path (relative to the config file)."""

    name: str
    maps: WholeNumber = Field(ge=1)
    statistics: StatisticSources = StatisticSources()
    exclude: list[str] = []
    #: Columns of a vector file holding region names / codes (default: names detected, codes made from them).
    name_field: str | None = None
    code_field: str | None = None
    #: Language of the questions (``en``, ``hi``, ``zh``, ``es``; see ``mapgen.geo.languages``) and, with
    #: ``labels: names``, of the names drawn on annotated maps (where a name does not fit: its short form or code).
    language: str = "en"
    labels: Literal["codes", "names"] = "codes"

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        """Leave unset file fields and default language/labels out, so older configs dump (and hash) as before."""
        data = handler(self)
        defaults = {"name_field": None, "code_field": None, "language": "en", "labels": "codes"}
        return {k: v for k, v in data.items() if not (k in defaults and v == defaults[k])}

    @property
    def builtin(self) -> bool:
        """True for a built-in atlas (``usa``, ``india``, ``china``), False for a user vector file."""
        from mapgen.geo.atlas import BUILTIN

        return self.name.strip().lower() in BUILTIN

    @property
    def key(self) -> str:
        """The country's short name in map ids and records: the atlas name, or the vector file's stem."""
        return self.name.strip().lower() if self.builtin else Path(self.name).stem

    @field_validator("maps")
    @classmethod
    def _maps_limit(cls, maps: int) -> int:
        if maps > MAX_MAPS:
            raise ValueError(f"{maps} maps is more than the {MAX_MAPS} a build can hold; split it into several "
                             "builds (different seeds) or ask for fewer maps")
        return maps

    @model_validator(mode="after")
    def _known_atlas(self) -> CountryConfig:
        from mapgen.geo.atlas import BUILTIN
        from mapgen.geo.source import VECTOR_SUFFIXES

        if not self.builtin and not self.name.lower().endswith((*VECTOR_SUFFIXES, ".json")):
            raise ValueError(f"unknown countries [{self.name!r}]; choose from {list(BUILTIN)} or give a GeoJSON / "
                             "GeoPackage / shapefile path (relative to the config file)")
        if not self.builtin and isinstance(self.statistics.curated, list) and self.statistics.curated:
            raise ValueError(f"{self.name}: a user atlas has no curated tables; use statistics.files or synthetic")
        if self.builtin and (self.name_field or self.code_field):
            raise ValueError(f"{self.name}: name_field / code_field apply to vector files only")
        return self._known_language()

    def _known_language(self) -> CountryConfig:
        from mapgen.geo.languages import check_language, names_for

        check_language(self.language)
        if self.language != "en" and not self.builtin:
            raise ValueError(f"{self.name}: questions in {self.language!r} need region names in that language, "
                             "which only the built-in atlases have; use language: en for a vector file")
        if self.language != "en":
            names_for(self.language, self.key)
        return self


class LegendChoices(Strict):
    types: Annotated[list[Literal["discrete", "continuous"]], NonEmpty] = ["discrete", "continuous"]
    classes: Annotated[list[WholeNumber], NonEmpty] = [3, 4, 5, 6]
    #: Registered classification schemes (:mod:`mapgen.schemes`), any spelling.
    schemes: Annotated[list[str], NonEmpty] = ["quantiles", "equal_interval"]
    orders: Annotated[list[Literal["small_to_large", "large_to_small"]], NonEmpty] = [
        "small_to_large", "large_to_small"]
    #: Colour-bar scales continuous maps draw from, one per map, seeded (a log map whose values are not all
    #: positive is drawn clipped instead); ``clip``: the percentiles a clipped bar spans; ``midpoint``: the value
    #: at a diverging colormap's centre (None: the data's median).
    scales: Annotated[list[Literal["linear", "log", "clip"]], NonEmpty] = ["linear"]
    clip: tuple[Number, Number] = (2.0, 98.0)
    midpoint: Number | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without the scale fields at their defaults (a config without them dumps, hashes and builds as before)."""
        data = handler(self)
        for key, default in (("scales", ["linear"]), ("clip", (2.0, 98.0)), ("midpoint", None)):
            if key in data and (list(data[key]) if isinstance(data[key], (list, tuple)) else data[key]) == (
                    list(default) if isinstance(default, (list, tuple)) else default):
                data.pop(key)
        return data

    @field_validator("clip")
    @classmethod
    def _clip_percentiles(cls, value: tuple[float, float]) -> tuple[float, float]:
        if not 0 <= value[0] < value[1] <= 100:
            raise ValueError(f"clip percentiles must satisfy 0 <= low < high <= 100, got {list(value)}")
        return value

    @field_validator("schemes")
    @classmethod
    def _known_schemes(cls, values: list[str]) -> list[str]:
        from mapgen.schemes import USER_DEFINED, scheme_name

        names = [scheme_name(name) for name in values]
        if USER_DEFINED in names:
            raise ValueError("user_defined classes need breaks, which a config does not give; choose registered "
                             "schemes (mapgen.schemes.scheme_names)")
        return names

    @field_validator("classes")
    @classmethod
    def _class_counts(cls, values: list[int]) -> list[int]:
        bad = [v for v in values if not 3 <= v <= 8]
        if bad:
            raise ValueError(f"class counts must lie in 3-8 (8 = number of hatch patterns), got {bad}")
        return values


class VariantChoices(Strict):
    annotated: TrueOrFalse = True
    unannotated: TrueOrFalse = True
    hatched: TrueOrFalse = True
    colormaps: Annotated[list[str], NonEmpty] = [
        "Blues", "Greens", "Purples", "Oranges", "Reds", "YlOrRd", "YlGnBu", "viridis"]
    reverse_share: Number = Field(0.15, ge=0.0, le=1.0)
    backgrounds: Annotated[list[str], NonEmpty] = ["white", "lightgray", "lightsteelblue"]
    #: Registered renderer names (:mod:`mapgen.renderers`).
    renderers: Annotated[list[str], NonEmpty] = ["matplotlib"]
    legend_positions: Annotated[list[Literal["right", "bottom", "bottom-right", "bottom-left", "left", "top"]],
                                NonEmpty] = ["right"]
    png_compress_level: WholeNumber = Field(6, ge=0, le=9)
    #: Page size; when neither is given each country's maps get the size of its shape (800 wide,
    #: :func:`mapgen.render.layout.default_page_size`); when one is given the other defaults to 800 / 600.
    width: WholeNumber | None = Field(None, ge=MIN_PX, le=MAX_PX)
    height: WholeNumber | None = Field(None, ge=MIN_PX, le=MAX_PX)
    #: Map styles the maps draw from (presets of ``templates/styles`` or style YAML files, relative to the
    #: config's folder): one per map, seeded.
    styles: list[str] = ["default"]

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        """Leave the default styles out, so configs without styles dump (and hash) as before."""
        data = handler(self)
        return {k: v for k, v in data.items()
                if not (k == "styles" and v == ["default"]) and not (k in ("width", "height") and v is None)}

    @property
    def size(self) -> tuple[int, int] | None:
        """The stated page size (width, height), or None when the config states none."""
        if self.width is None and self.height is None:
            return None
        return (self.width or 800, self.height or 600)

    @field_validator("styles")
    @classmethod
    def _known_styles(cls, values: list[str]) -> list[str]:
        for name in values:
            preset = template_path("styles", f"{name}.yaml")
            if not (preset.is_file() or is_style_file(name)):  # a file is looked for beside the config (check_files)
                raise ValueError(f"unknown style {name!r}: use a preset of `mapgen styles list` or a .yaml file")
        if not values:
            raise ValueError("styles needs at least one style (default: [default])")
        return values

    @field_validator("colormaps")
    @classmethod
    def _known_colormaps(cls, values: list[str]) -> list[str]:
        from mapgen.legend import resolve_colormap_name

        for name in values:
            resolve_colormap_name(name)  # raises ValueError listing close matches
        return values

    @field_validator("renderers")
    @classmethod
    def _known_renderers(cls, values: list[str]) -> list[str]:
        from mapgen.renderers import check_renderer

        return [check_renderer(name) for name in values]

    @field_validator("backgrounds")
    @classmethod
    def _known_backgrounds(cls, values: list[str]) -> list[str]:
        from mapgen.spec import background_color

        for name in values:
            background_color(name)
        return values


class CounterfactualSet(Strict):
    country: str = "usa"
    maps: WholeNumber = Field(0, ge=0)
    kinds: Annotated[list[CounterfactualKind], NonEmpty] = list(COUNTERFACTUAL_KINDS)


class QuestionChoices(Strict):
    """Which questions a build asks: every image offers up to ``per_template`` candidates of each template and
    ``per_image`` are chosen per image, every template at least ``min_per_template`` times per country (where
    the maps allow) and every answer type at least ``min_per_answer_type`` times (0: no floor), each answer at
    most ``max_answer_share`` of its template, empty list answers at most ``max_empty_share`` of a list template
    and zero counts at most ``max_zero_share`` of a count template."""

    templates: Literal["all"] | list[str] = "all"
    #: Template packs (folders or YAML files, relative to the config file) whose templates join the built-in
    #: ones; ``templates`` selects ids among both. A pack's functions.py is Python and runs when it is loaded.
    packs: list[str] = []
    per_template: WholeNumber = Field(1, ge=1, le=MAX_QUESTIONS)
    per_image: WholeNumber = Field(4, ge=0, le=MAX_QUESTIONS)
    min_per_template: WholeNumber = Field(5, ge=0, le=MAX_QUESTIONS)
    min_per_answer_type: WholeNumber = Field(0, ge=0, le=MAX_QUESTIONS)
    max_answer_share: Number = Field(0.25, gt=0.0, le=1.0)
    max_empty_share: Number = Field(0.04, ge=0.0, le=1.0)
    max_zero_share: Number = Field(0.10, ge=0.0, le=1.0)
    #: How many templates each image draws candidates from: ``all`` (every template on every image), or N, a
    #: seeded slice of a per-map template order (each variant of a map takes the next slice, so a map with
    #: ``N × variants ≥ templates`` offers every template once; every template is offered to about N/T of a
    #: country's images). The question stage of a large build costs about N/T of ``all``'s.
    templates_per_image: Literal["all"] | Annotated[WholeNumber, Field(ge=1, le=MAX_QUESTIONS)] = "all"

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without ``packs`` when there are none, ``min_per_answer_type`` when 0 and ``templates_per_image`` when
        ``all`` (a config without them dumps, hashes and builds as before)."""
        data = handler(self)
        if not self.packs:
            data.pop("packs", None)
        if not self.min_per_answer_type:
            data.pop("min_per_answer_type", None)
        if self.templates_per_image == "all":
            data.pop("templates_per_image", None)
        return data


class SplitConfig(Strict):
    ratios: dict[str, Number] = {"test": 1.0}
    disjoint_colormaps: TrueOrFalse = False

    @field_validator("ratios")
    @classmethod
    def _ratios(cls, ratios: dict[str, float]) -> dict[str, float]:
        if not ratios or any(v < 0 for v in ratios.values()) or abs(sum(ratios.values()) - 1.0) > 1e-6:
            raise ValueError(f"split ratios must be non-negative and sum to 1, got {ratios}")
        return ratios


class RecordChoices(Strict):
    """How the task record files are written: ``per_shard`` records a file (0: one file a task,
    ``questions.jsonl``, ``captions.jsonl``, …; N: shards ``records/questions-00000.jsonl``, … of N records each, in
    build order, that the manifest lists under ``record_shards``). Readers stream every shard in order
    (:meth:`mapgen.benchmark.Benchmark.iter_records`)."""

    per_shard: WholeNumber = Field(0, ge=0, le=100_000_000)


class BuildConfig(Strict):
    """The whole build."""

    name: str = "benchmark"
    seed: WholeNumber = Field(0, ge=0, le=MAX_SEED)
    countries: list[CountryConfig]
    legend: LegendChoices = LegendChoices()
    variants: VariantChoices = VariantChoices()
    counterfactual: CounterfactualSet = CounterfactualSet()
    questions: QuestionChoices = QuestionChoices()
    #: Tasks to build, by their registered names (:mod:`mapgen.tasks`; the build checks each against the registry,
    #: an unknown one failing with the closest names); the built-in table-reading task is opt-in.
    tasks: list[str] = list(TASKS)
    split: SplitConfig = SplitConfig()
    referring_per_map: WholeNumber = Field(4, ge=0, le=MAX_QUESTIONS)
    #: Pixel-oracle audit of every question during the build: off, flag (add an ``audit`` field) or drop
    #: (leave out questions the oracle cannot recover from the image).
    audit: Literal["off", "flag", "drop"] = "off"
    #: How the record files are written: one file a task, or shards (:class:`RecordChoices`).
    records: RecordChoices = RecordChoices()

    #: Folder the config file lies in: user atlas and table paths are relative to it (not part of the dump).
    _base_dir: Path | None = PrivateAttr(default=None)
    #: Where the config was read from, as error messages name it ("config" for a dict).
    _where: str = PrivateAttr(default="config")
    #: Paths as written → their copies in a build folder (a worker's config read from the folder:
    #: :mod:`mapgen.build.inputs`); empty for a config read from its file.
    _copies: dict[str, Path] = PrivateAttr(default_factory=dict)

    @field_validator("tasks")
    @classmethod
    def _task_names(cls, names: list[str]) -> list[str]:
        """Task names listed once each (whether they are registered is the build's check, :mod:`mapgen.tasks`)."""
        if not names:
            raise ValueError(f"lists no task, so the build would hold nothing; name at least one of "
                             f"{', '.join(TASKS)} (or leave `tasks` out for all of them)")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"tasks listed twice: {', '.join(twice)}")
        return names

    @field_validator("countries")
    @classmethod
    def _countries(cls, countries: list[CountryConfig]) -> list[CountryConfig]:
        if not countries:
            raise ValueError("no countries: list at least one, e.g. `countries: [{name: usa, maps: 10}]`")
        keys = [c.key for c in countries]
        counts = Counter(keys)
        twice = sorted(k for k, n in counts.items() if n > 1)
        if twice:
            raise ValueError(f"each country may appear once (atlas names and file stems); "
                             f"{', '.join(f'{k!r} is listed {counts[k]:,} times' for k in twice[:8])}: "
                             "give each one entry and set its `maps`")
        if sum(c.maps for c in countries) > MAX_MAPS:
            raise ValueError(f"the countries ask for {sum(c.maps for c in countries)} maps in all; a build holds "
                             f"at most {MAX_MAPS} (split it into several builds)")
        return countries

    @model_validator(mode="after")
    def _cross_checks(self) -> BuildConfig:
        if self.counterfactual.maps:
            match = [c for c in self.countries if self.counterfactual.country in (c.name, c.key)]
            if not match:
                raise ValueError(f"counterfactual.country {self.counterfactual.country!r} is not among the countries")
            if self.counterfactual.maps > match[0].maps:
                raise ValueError(
                    f"counterfactual.maps ({self.counterfactual.maps}) exceeds the {match[0].maps} maps of "
                    f"{self.counterfactual.country}"
                )
        if self.split.disjoint_colormaps and len(self.variants.colormaps) < len(self.split.ratios):
            raise ValueError("disjoint_colormaps needs at least one colormap per split")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without ``records`` when every task has one file (a config without it dumps, hashes and builds as
        before)."""
        data = handler(self)
        if not self.records.per_shard:
            data.pop("records", None)
        return data

    def digest(self, inputs: dict[str, dict[str, str]] | None = None) -> str:
        """Stable hash of the resolved config (what the output folder was built from), including the content of
        every user file it names (``inputs``: :meth:`input_digests` when the caller has them), so a changed
        atlas, table, pack or style is a different build."""
        inputs = self.input_digests() if inputs is None else inputs
        payload = self.model_dump() | ({"files": inputs["files"]} if inputs["files"] else {})
        if inputs["packs"]:
            payload["pack_digests"] = inputs["packs"]
        if inputs["styles"]:
            payload["style_digests"] = inputs["styles"]
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def input_digests(self) -> dict[str, dict[str, str]]:
        """sha256 of every file the config names, by kind (``files``: atlases and tables, ``packs``, ``styles``)
        and path as written."""
        from mapgen.files import sha256_file

        styles = {name: sha256_file(self.resolve_path(name)) for name in self.style_files()}
        return {"files": self.file_digests(), "packs": self.pack_digests(), "styles": styles}

    def style_files(self) -> list[str]:
        """The style YAML files of ``variants.styles`` (paths as written, relative to the config's folder)."""
        return [name for name in self.variants.styles if is_style_file(name)]

    def style_file(self, name: str | None) -> Path | None:
        """Where the style ``name`` of ``variants.styles`` is read from: its file, resolved against the config's
        folder (None for a preset)."""
        return self.resolve_path(name) if name and is_style_file(name) else None

    # --- user files (paths relative to the config file) ----------------------------------------------------
    @property
    def base_dir(self) -> Path:
        """The folder relative paths are resolved against: the config file's folder (else the working folder)."""
        return self._base_dir or Path.cwd()

    @property
    def where(self) -> str:
        """The config file as error messages name it (``config`` when it was given as a dict)."""
        return self._where

    def resolve_path(self, path: str | Path) -> Path:
        """A path of the config resolved against :attr:`base_dir` (absolute paths unchanged; a config read from a
        build folder resolves each file it names to the folder's copy)."""
        if str(path) in self._copies:
            return self._copies[str(path)]
        path = Path(path)
        return path if path.is_absolute() else (self.base_dir / path).resolve()

    def country(self, name: str) -> CountryConfig:
        """The country entry called ``name`` (its name as written or its key)."""
        for c in self.countries:
            if name in (c.name, c.key):
                return c
        raise KeyError(f"no country {name!r} in the config; it has {[c.key for c in self.countries]}")

    def user_files(self) -> list[str]:
        """Paths (as written) of the user atlas and table files the config names, in config order."""
        out = [c.name for c in self.countries if not c.builtin]
        return out + [f for c in self.countries for f in c.statistics.files]

    def file_digests(self) -> dict[str, str]:
        """sha256 of every user file, keyed by its path as written (missing files raise a clear error)."""
        from mapgen.geo.source import file_digest

        return {name: file_digest(self.resolve_path(name)) for name in self.user_files()}

    def check_files(self, where: str) -> None:
        """Raise :class:`ConfigError` listing every user file that does not exist."""
        missing = [f"{name}: no file {str(self.resolve_path(name))!r}" for name in self.user_files()
                   if not self.resolve_path(name).is_file()]
        missing += [f"variants.styles: no style file {str(self.resolve_path(name))!r}" for name in self.style_files()
                    if not self.resolve_path(name).is_file()]
        if missing:
            raise ConfigError(_problems(f"Invalid build config {where} (paths are relative to the config file)",
                                        missing))

    def pack_digests(self) -> dict[str, str]:
        """sha256 over every file of each template pack (a folder or a file), keyed by its path as written."""
        return {name: _tree_digest(self.resolve_path(name)) for name in self.questions.packs}

    def check_packs(self, where: str) -> None:
        """Raise :class:`ConfigError` when a template pack is missing or two share a name (the build lints them
        before anything is written)."""
        paths = [self.resolve_path(name) for name in self.questions.packs]
        problems = [f"questions.packs: no template pack {str(p)!r}" for p in paths if not p.exists()]
        names = [p.stem if p.is_file() else p.name for p in paths]
        problems += [f"questions.packs: two packs named {n!r}; rename one" for n in sorted(set(names))
                     if names.count(n) > 1]
        if problems:
            raise ConfigError(_problems(f"Invalid build config {where} (paths are relative to the config file)",
                                        problems))

    def check_tables(self, where: str) -> None:
        """Raise :class:`ConfigError` listing every statistics file that cannot be read as a table of its
        country (whether or not a map draws it), so a bad file stops the build before anything is written."""
        from mapgen.data.user_tables import load_table

        bad = []
        for i, country in enumerate(self.countries):
            if not country.statistics.files:
                continue
            atlas = _config_atlas(self, country)
            for j, name in enumerate(country.statistics.files):
                try:
                    distinct = load_table(self.resolve_path(name), atlas, on_missing="ignore").present.nunique()
                except ValueError as exc:
                    bad.append(f"countries.{i}.statistics.files.{j} ({name}): {exc}")
                    continue
                if distinct < 2:  # no legend can be built (found here, not when its map is drawn)
                    bad.append(f"countries.{i}.statistics.files.{j} ({name}): holds {distinct} distinct value(s) "
                               f"for {country.name}'s regions; a map needs at least 2 different values")
        if bad:
            raise ConfigError(_problems(f"Invalid build config {where}", bad))


def load_config(source: str | Path | dict[str, Any]) -> BuildConfig:
    """Validate a config given as a dict, a YAML path, or a packaged config name (``mapwise``, ``small``)."""
    if isinstance(source, dict):
        data, where = source, "config"
    else:
        path = _locate(source)
        where = str(path)
        try:
            data = load_yaml(read_text_file(path))
        except YAMLFileError as exc:
            raise ConfigError(str(exc)) from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"{where} is not valid YAML: {yaml_problem(exc)}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{where} must hold a mapping at the top level.")
    try:
        config = BuildConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(exc, where)) from None
    if not isinstance(source, dict):
        config._base_dir = path.resolve().parent
        config._where = where
    config.check_files(where)
    config.check_packs(where)
    config.check_tables(where)
    return config


def is_style_file(name: str) -> bool:
    """Whether a ``variants.styles`` entry names a YAML file (else a preset)."""
    return name.lower().endswith((".yaml", ".yml"))


def _tree_digest(path: Path) -> str:
    """sha256 over a file, or over every file of a folder (paths inside it and contents; caches skipped)."""
    from mapgen.files import sha256_file

    files = [path] if path.is_file() else sorted(f for f in path.rglob("*") if f.is_file()
                                                 and "__pycache__" not in f.parts)
    h = hashlib.sha256()
    for f in files:
        h.update(f"{f.relative_to(path) if f != path else f.name}\0{sha256_file(f)}\n".encode())
    return h.hexdigest()


def _config_atlas(config: BuildConfig, country: CountryConfig):
    """The atlas a country's maps use (a vector file read with the config's name / code fields)."""
    from mapgen.geo.atlas import load_atlas

    if country.builtin:
        return load_atlas(country.key, exclude=country.exclude)
    return load_atlas(config.resolve_path(country.name), exclude=country.exclude, name_field=country.name_field,
                      code_field=country.code_field)


def format_errors(exc: ValidationError, where: str) -> str:
    """``path.in.yaml: message`` for each problem: one line for one problem, else a heading and a list. A value
    that fits no member of a union field (``templates: 3`` for ``'all'`` or a list) is one problem naming what the
    field allows, not one per member."""
    problems: list[str | tuple[Any, ...]] = []
    unions: dict[tuple[Any, ...], list[Any]] = {}
    for err in exc.errors():
        found = _union_field(err["loc"])
        if err["type"] == "extra_forbidden":
            problems.append(_extra_key_problem(err["loc"]))
        elif found is None:
            problems.append(f"{_dotted(err['loc'])}: {err['msg'].removeprefix('Value error, ')}")
        elif found[0] not in unions:
            unions[found[0]] = [err]
            problems.append(found[0])  # placeholder, replaced below (keeps the problems in pydantic's order)
        else:
            unions[found[0]].append(err)
    lines = [_union_problem(p, unions[p]) if isinstance(p, tuple) else p for p in problems]
    return _problems(f"Invalid build config {where}", lines)


def _extra_key_problem(loc: tuple[Any, ...]) -> str:
    """``split.ratio: unknown key; did you mean `ratios`?`` (the closest key the mapping takes, else all of them)."""
    keys = _model_fields_at(loc[:-1])
    close = difflib.get_close_matches(str(loc[-1]), keys, n=1, cutoff=0.6)
    if close:
        return f"{_dotted(loc)}: unknown key; did you mean `{close[0]}`?"
    return f"{_dotted(loc)}: unknown key; this mapping takes {', '.join(f'`{k}`' for k in keys) or 'no keys'}"


def _model_fields_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys the mapping at ``loc`` of a :class:`BuildConfig` takes (list indexes and union members passed)."""
    annotation: Any = BuildConfig
    for key in loc:
        annotation = _field_type(annotation)
        members = [m for m in _union_members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)]
        if members:
            annotation = members[0]
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if key not in annotation.model_fields:
                continue  # pydantic names a union member or a tag: it is not a key of the YAML
            annotation = annotation.model_fields[key].annotation
        elif get_origin(annotation) in (list, tuple, dict) and get_args(annotation):
            annotation = get_args(annotation)[-1 if get_origin(annotation) is dict else 0]
    annotation = _field_type(annotation)
    members = [m for m in _union_members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)]
    annotation = members[0] if members else annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return list(annotation.model_fields)
    return []


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def _field_type(annotation: Any) -> Any:
    """An annotation without ``Annotated[...]`` and without ``| None`` (a lone optional type)."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
            continue
        members = _union_members(annotation)
        if len(members) == 1:
            annotation = members[0]
            continue
        return annotation


def _union_members(annotation: Any) -> list[Any]:
    """The non-None members of a union annotation (``[]`` for any other annotation)."""
    if get_origin(annotation) not in (Union, UnionType):
        return []
    return [a for a in get_args(annotation) if a is not type(None)]


def _union_field(loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any, Any] | None:
    """``(loc of the field, its union annotation, its default)`` when ``loc`` runs through a member of a union
    field of :class:`BuildConfig` (pydantic names the member: ``questions.templates.list[str].0``), else None."""
    annotation: Any = BuildConfig
    default: Any = PydanticUndefined
    for i, key in enumerate(loc):
        annotation = _field_type(annotation)
        if len(_union_members(annotation)) > 1:
            return tuple(loc[:i]), annotation, default
        if isinstance(annotation, type) and issubclass(annotation, BaseModel) and key in annotation.model_fields:
            field = annotation.model_fields[key]
            annotation, default = field.annotation, field.default
        elif get_origin(annotation) in (list, tuple, dict) and get_args(annotation):
            annotation, default = get_args(annotation)[-1 if get_origin(annotation) is dict else 0], PydanticUndefined
        else:
            return None
    return None


def _union_problem(loc: tuple[Any, ...], errors: list[dict[str, Any]]) -> str:
    """One line for a value no member of a union field accepts: the value, what the field takes, the fix."""
    _, annotation, default = _union_field(errors[0]["loc"]) or ((), None, PydanticUndefined)
    given = min(errors, key=lambda e: len(e["loc"]))["input"]
    allowed = " or ".join(_kind_of(m) for m in _union_members(annotation))
    fix = ("write one of those" if default is PydanticUndefined
           else f"write e.g. `{loc[-1]}: {json.dumps(default)}` (the default)")
    return f"{_dotted(loc)}: got {json.dumps(given, default=str)}; it takes {allowed}; {fix}"


def _kind_of(annotation: Any) -> str:
    """What values of a type look like, in a config writer's words (``a list of texts``, ``'all'``)."""
    annotation = _field_type(annotation)
    if get_origin(annotation) is Literal:
        return " or ".join(json.dumps(v) for v in get_args(annotation))
    if get_origin(annotation) in (list, tuple):
        inner = get_args(annotation)
        return f"a list of {_kind_of(inner[0]).removeprefix('a ')}s" if inner else "a list"
    names = {str: "a text", int: "a whole number", float: "a number", bool: "true or false", dict: "a mapping"}
    if annotation in names:
        return names[annotation]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"a mapping of {', '.join(annotation.model_fields)}"
    return getattr(annotation, "__name__", str(annotation))


def _problems(heading: str, problems: list[str]) -> str:
    """One line (``heading: problem``) for a single problem, else the heading and one ``  - `` line each."""
    if len(problems) == 1:
        return f"{heading}: {problems[0]}"
    return "\n".join([f"{heading} ({len(problems)} problems):", *(f"  - {p}" for p in problems)])


def packaged_configs() -> list[str]:
    """Names of the configs shipped with mapgen."""
    return sorted(p.name[:-5] for p in config_path().iterdir() if p.name.endswith(".yaml"))


def _locate(source: str | Path) -> Path:
    path = Path(source)
    if path.is_file():
        return path
    shipped = config_path(f"{source}.yaml")
    if shipped.is_file():  # a folder of that name (say the output of `mapgen build train -o train`) is no config
        return Path(str(shipped))
    if path.is_dir():
        raise ConfigError(f"{str(source)!r} is a folder, not a config file; give a YAML path or one of the "
                          f"packaged configs: {', '.join(packaged_configs())}.")
    raise ConfigError(
        f"No config file {str(source)!r}; give a YAML path or one of the packaged configs: "
        f"{', '.join(packaged_configs())}."
    )
