"""mapgen.eval."""
