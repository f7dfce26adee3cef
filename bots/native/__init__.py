"""The compiled core's C sources and its extension module ``_kdcore`` (built by pip)."""
