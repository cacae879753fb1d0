"""mapgen.data."""
