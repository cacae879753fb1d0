"""mapgen.render."""
