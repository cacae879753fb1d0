"""Benchmark build configuration: a YAML file validated with pydantic, every problem reported with its path.

A config names the countries and how many maps each gets, where statistics come from (curated tables, user
files, seeded synthetic tables), the legend and style choices maps draw from, the image variants, the
counterfactual set, the questions per image, the tasks, the train/test split and the global seed.
Packaged configs (``mapwise``, ``small``) are found by name.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mapgen.resources import config_path

COUNTERFACTUAL_KINDS = ("original", "imaginary", "shuffled", "jumbled")
TASKS = ("vqa", "caption", "grounding")


class ConfigError(ValueError):
    """An invalid build config; the message lists every problem with its path in the YAML."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SyntheticSource(Strict):
    """Seeded synthetic tables (fresh, never-published values)."""

    count: int = Field(0, ge=0)
    distributions: list[Literal["uniform", "normal", "lognormal", "heavy_tailed", "bimodal"]] = ["lognormal"]
    spatial: list[float] = [0.0, 0.5, 0.9]
    kinds: list[Literal["absolute", "percent"]] = ["absolute", "percent"]

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
    name: str
    maps: int = Field(ge=1)
    statistics: StatisticSources = StatisticSources()
    exclude: list[str] = []


class LegendChoices(Strict):
    types: list[Literal["discrete", "continuous"]] = ["discrete", "continuous"]
    classes: list[int] = [3, 4, 5, 6]
    schemes: list[Literal["quantiles", "equal_interval", "natural_breaks"]] = ["quantiles", "equal_interval"]
    orders: list[Literal["small_to_large", "large_to_small"]] = ["small_to_large", "large_to_small"]

    @field_validator("classes")
    @classmethod
    def _class_counts(cls, values: list[int]) -> list[int]:
        bad = [v for v in values if not 3 <= v <= 7]
        if bad:
            raise ValueError(f"class counts must lie in 3-7 (7 = number of hatch patterns), got {bad}")
        return values


class VariantChoices(Strict):
    annotated: bool = True
    unannotated: bool = True
    hatched: bool = True
    colormaps: list[str] = ["Blues", "Greens", "Purples", "Oranges", "Reds", "YlOrRd", "YlGnBu", "viridis"]
    reverse_share: float = Field(0.15, ge=0.0, le=1.0)
    backgrounds: list[str] = ["white", "lightgray", "lightsteelblue"]
    renderers: list[Literal["matplotlib", "plotly"]] = ["matplotlib"]
    legend_positions: list[Literal["right", "bottom", "bottom-right", "bottom-left", "left", "top"]] = ["right"]
    png_compress_level: int = Field(6, ge=0, le=9)
    width: int = Field(800, ge=100, le=4000)
    height: int = Field(600, ge=100, le=4000)

    @field_validator("colormaps")
    @classmethod
    def _known_colormaps(cls, values: list[str]) -> list[str]:
        from mapgen.legend import resolve_colormap_name

        for name in values:
            resolve_colormap_name(name)  # raises ValueError listing close matches
        return values

    @field_validator("backgrounds")
    @classmethod
    def _known_backgrounds(cls, values: list[str]) -> list[str]:
        from mapgen.spec import background_color

        for name in values:
            background_color(name)
        return values


class CounterfactualSet(Strict):
    country: str = "usa"
    maps: int = Field(0, ge=0)
    kinds: list[Literal["original", "imaginary", "shuffled", "jumbled"]] = list(COUNTERFACTUAL_KINDS)


class QuestionChoices(Strict):
    templates: Literal["all"] | list[str] = "all"
    per_template: int = Field(1, ge=1)
    per_image: int = Field(4, ge=0)
    max_answer_share: float = Field(0.25, gt=0.0, le=1.0)


class SplitConfig(Strict):
    ratios: dict[str, float] = {"test": 1.0}
    disjoint_colormaps: bool = False

    @field_validator("ratios")
    @classmethod
    def _ratios(cls, ratios: dict[str, float]) -> dict[str, float]:
        if not ratios or any(v < 0 for v in ratios.values()) or abs(sum(ratios.values()) - 1.0) > 1e-6:
            raise ValueError(f"split ratios must be non-negative and sum to 1, got {ratios}")
        return ratios


class BuildConfig(Strict):
    """The whole build."""

    name: str = "benchmark"
    seed: int = 0
    countries: list[CountryConfig]
    legend: LegendChoices = LegendChoices()
    variants: VariantChoices = VariantChoices()
    counterfactual: CounterfactualSet = CounterfactualSet()
    questions: QuestionChoices = QuestionChoices()
    tasks: list[Literal["vqa", "caption", "grounding"]] = ["vqa", "caption", "grounding"]
    split: SplitConfig = SplitConfig()
    referring_per_map: int = Field(4, ge=0)
    #: Pixel-oracle audit of every question during the build: off, flag (add an ``audit`` field) or drop
    #: (leave out questions the oracle cannot recover from the image).
    audit: Literal["off", "flag", "drop"] = "off"

    @field_validator("countries")
    @classmethod
    def _countries(cls, countries: list[CountryConfig]) -> list[CountryConfig]:
        from mapgen.geo.atlas import BUILTIN

        names = [c.name for c in countries]
        unknown = [n for n in names if n not in BUILTIN]
        if unknown:
            raise ValueError(f"unknown countries {unknown}; choose from {list(BUILTIN)}")
        if len(set(names)) != len(names):
            raise ValueError(f"each country may appear once, got {names}")
        return countries

    @model_validator(mode="after")
    def _cross_checks(self) -> BuildConfig:
        if self.counterfactual.maps:
            match = [c for c in self.countries if c.name == self.counterfactual.country]
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

    def digest(self) -> str:
        """Stable hash of the resolved config (what the output folder was built from)."""
        return hashlib.sha256(json.dumps(self.model_dump(), sort_keys=True).encode()).hexdigest()


def load_config(source: str | Path | dict[str, Any]) -> BuildConfig:
    """Validate a config given as a dict, a YAML path, or a packaged config name (``mapwise``, ``small``)."""
    if isinstance(source, dict):
        data, where = source, "config"
    else:
        path = _locate(source)
        where = str(path)
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise ConfigError(f"{where} is not valid YAML: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{where} must hold a mapping at the top level.")
    try:
        return BuildConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(exc, where)) from None


def format_errors(exc: ValidationError, where: str) -> str:
    """One line per problem: ``path.in.yaml: message``."""
    lines = [f"Invalid build config {where} ({exc.error_count()} problem(s)):"]
    for err in exc.errors():
        path = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  - {path}: {err['msg']}")
    return "\n".join(lines)


def packaged_configs() -> list[str]:
    """Names of the configs shipped with mapgen."""
    return sorted(p.name[:-5] for p in config_path().iterdir() if p.name.endswith(".yaml"))


def _locate(source: str | Path) -> Path:
    path = Path(source)
    if path.exists():
        return path
    shipped = config_path(f"{source}.yaml")
    if shipped.is_file():
        return Path(str(shipped))
    raise ConfigError(
        f"No config file {str(source)!r}; give a YAML path or one of the packaged configs: "
        f"{', '.join(packaged_configs())}."
    )
