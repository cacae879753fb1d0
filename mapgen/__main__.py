"""``python -m mapgen``: the same as the ``mapgen`` command."""

from mapgen.cli import main

if __name__ == "__main__":
    main()
