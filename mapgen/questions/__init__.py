"""mapgen.questions."""
