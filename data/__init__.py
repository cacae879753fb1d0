"""Shipped data files (atlas geometry, curated statistics, named regions, overrides)."""
