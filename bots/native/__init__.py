"""The compiled core's C sources and its extension modules ``_kdcore`` (128-bit boards) and
``_kdcore64`` (64-bit boards), built by pip from the same sources (setup.py)."""
