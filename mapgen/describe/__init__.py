"""mapgen.describe."""
