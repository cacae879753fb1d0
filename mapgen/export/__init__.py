"""mapgen.export."""
