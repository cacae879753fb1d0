"""mapgen.geo."""
