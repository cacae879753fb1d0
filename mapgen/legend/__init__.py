"""Legends: the model, classification into classes (mapclassify), the label grammar and colours.

Modules: :mod:`~mapgen.legend.model` (``Legend``, ``LegendClass``, the typed ``LabelOptions`` and
``MapwiseProvenance`` records), :mod:`~mapgen.legend.classify` (``discrete_legend`` with ``DiscreteOptions``,
``continuous_legend``), :mod:`~mapgen.legend.grammar` (writing and reading legend numbers and labels, also used
by the questions, eval normalisation and the MAPWise recheck) and :mod:`~mapgen.legend.colors` (colormaps,
class colours, luminance, CIELAB). MAPWise metadata conversion lives in :mod:`mapgen.mapwise.schema`.
"""

from mapgen.legend.classify import (
    K_MAX,
    K_MIN,
    DiscreteOptions,
    continuous_legend,
    discrete_legend,
    nice_ticks,
)
from mapgen.legend.colors import (
    CLASS_COLOR_RANGE,
    HATCH_COLOR_RANGE,
    HATCHES,
    MAX_CLASS_LUMINANCE,
    class_color_range,
    class_colors,
    colormap_names,
    get_colormap,
    hex_to_rgb_string,
    relative_luminance,
    resolve_colormap_name,
    sample_colors,
    to_hex_color,
)
from mapgen.legend.grammar import (
    LABEL_STYLES,
    NA_LABEL,
    format_range,
    format_ranges,
    format_value,
    parse_label,
)
from mapgen.legend.model import (
    LabelBounds,
    LabelOptions,
    Legend,
    LegendClass,
    LegendKind,
    LegendOrder,
    MapwiseProvenance,
)

__all__ = [
    "CLASS_COLOR_RANGE",
    "HATCHES",
    "HATCH_COLOR_RANGE",
    "K_MAX",
    "K_MIN",
    "LABEL_STYLES",
    "MAX_CLASS_LUMINANCE",
    "NA_LABEL",
    "DiscreteOptions",
    "LabelBounds",
    "LabelOptions",
    "Legend",
    "LegendClass",
    "LegendKind",
    "LegendOrder",
    "MapwiseProvenance",
    "class_color_range",
    "class_colors",
    "colormap_names",
    "continuous_legend",
    "discrete_legend",
    "format_range",
    "format_ranges",
    "format_value",
    "get_colormap",
    "hex_to_rgb_string",
    "nice_ticks",
    "parse_label",
    "relative_luminance",
    "resolve_colormap_name",
    "sample_colors",
    "to_hex_color",
]
