"""Colour helpers for reading images: sRGB → CIELAB (D65) and CIE76 colour differences."""

from __future__ import annotations

import numpy as np

#: D65 white point (CIE 1931 2°).
_WHITE = np.array([0.95047, 1.0, 1.08883])
_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)


def rgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB of sRGB colours given as 0-255 values, shape ``(..., 3)``."""
    c = np.asarray(rgb, dtype=float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = lin @ _RGB_TO_XYZ.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    lab = np.empty_like(f)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    """``#rrggbb`` → (r, g, b)."""
    h = color.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def rgb_to_hex(rgb) -> str:
    return "#" + "".join(f"{int(round(float(v))):02x}" for v in rgb)


def delta_e(a, b) -> float:
    """CIE76 ΔE between two sRGB colours (0-255 triples or ``#rrggbb``)."""
    a = hex_to_rgb(a) if isinstance(a, str) else a
    b = hex_to_rgb(b) if isinstance(b, str) else b
    return float(np.linalg.norm(rgb_to_lab(np.array(a)) - rgb_to_lab(np.array(b))))


def min_pairwise_delta_e(colors: list) -> tuple[float, tuple[int, int] | None]:
    """Smallest ΔE between any two of ``colors`` and the index pair that has it."""
    best, pair = float("inf"), None
    labs = [rgb_to_lab(np.array(hex_to_rgb(c) if isinstance(c, str) else c)) for c in colors]
    for i in range(len(labs)):
        for j in range(i + 1, len(labs)):
            d = float(np.linalg.norm(labs[i] - labs[j]))
            if d < best:
                best, pair = d, (i, j)
    return best, pair
