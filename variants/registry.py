"""The registry of rulesets: the built-ins, ``kondavo.variants`` entry-point plugins, and
data-only rulesets (``*.toml``) from the directories ``KONDAVO_RULESET_DIRS`` names
(``os.pathsep``-separated; a Django site also reads its setting of that name)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from importlib.metadata import entry_points
from pathlib import Path

from variants.base import Variant
from variants.errors import UnknownVariant
from variants.rulesets.brazilian import BRAZILIAN
from variants.rulesets.english import ENGLISH
from variants.rulesets.international import INTERNATIONAL
from variants.rulesets.spanish import SPANISH
from variants.rulesets.turkish import TURKISH

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "kondavo.variants"
RULESET_DIRS_ENV = "KONDAVO_RULESET_DIRS"
BUILTINS: tuple[Variant, ...] = (INTERNATIONAL, ENGLISH, BRAZILIAN, SPANISH, TURKISH)


class Registry:
    """Rulesets by stable key, with aliases. Duplicate keys or aliases are refused."""

    def __init__(self, variants: Iterable[Variant] = ()) -> None:
        self._by_key: dict[str, Variant] = {}
        self._names: dict[str, Variant] = {}
        for variant in variants:
            self.register(variant)

    def register(self, variant: Variant) -> None:
        if not isinstance(variant, Variant):
            raise TypeError(f"{variant!r} is not a Variant")
        key = variant.key.strip().lower()
        if not key:
            raise ValueError(f"{variant!r} has no key")
        names = [key, *(a.lower() for a in variant.own_aliases)]
        for name in names:
            if name in self._names:
                raise ValueError(f"ruleset name {name!r} is already taken by "
                                 f"{self._names[name].key!r}")
        self._by_key[key] = variant
        for name in names:
            self._names[name] = variant

    def get(self, name: str) -> Variant:
        try:
            return self._names[name.strip().lower()]
        except KeyError:
            raise UnknownVariant(code="ruleset_unknown_name", name=name,
                                 known=", ".join(self._by_key)) from None

    def by_gametype(self, gametype: int | str) -> Variant:
        """The ruleset whose PDN GameType number is ``gametype`` (``20``, ``"20,W,10,10,N2,0"``)."""
        number = str(gametype).split(",", 1)[0].strip()
        for variant in self._by_key.values():
            if variant.pdn_gametype.split(",", 1)[0].strip() == number and number:
                return variant
        raise UnknownVariant(code="ruleset_unknown_gametype", gametype=number or gametype)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._names

    def keys(self) -> list[str]:
        return list(self._by_key)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def load_entry_points(self, group: str = ENTRY_POINT_GROUP) -> None:
        """Register every plugin of ``group``. A broken plugin is logged and skipped."""
        for ep in entry_points(group=group):
            try:
                obj = ep.load()
                variant = obj() if isinstance(obj, type) else obj
                self.register(variant)
            except Exception:  # a plugin must never take the site down
                log.exception("skipping ruleset plugin %r (%s)", ep.name, ep.value)

    def load_directory(self, directory: str | Path) -> list[str]:
        """Register the rulesets of ``directory``'s ``*.toml`` files; returns their keys.
        A broken file, or one whose key or aliases are taken, is logged and skipped."""
        from variants.toml_rulesets import load_ruleset_dir

        added: list[str] = []
        for variant in load_ruleset_dir(directory):
            try:
                self.register(variant)
            except ValueError as exc:
                log.error("skipping ruleset file for %r in %s: %s", variant.key, directory, exc)
            else:
                added.append(variant.key)
        return added


_default: Registry | None = None
_loaded_dirs: list[str] = []


def _env_dirs() -> list[str]:
    return [d for d in os.environ.get(RULESET_DIRS_ENV, "").split(os.pathsep) if d.strip()]


def default_registry() -> Registry:
    global _default
    if _default is None:
        registry = Registry(BUILTINS)
        registry.load_entry_points()
        _default = registry
        _loaded_dirs.clear()
        add_ruleset_dirs(_env_dirs())
    return _default


def add_ruleset_dirs(directories: Iterable[str | Path]) -> None:
    """Load data-only rulesets from ``directories`` into the default registry (each
    directory once)."""
    registry = default_registry()
    for directory in directories:
        name = str(Path(directory).resolve())
        if name not in _loaded_dirs:
            _loaded_dirs.append(name)
            registry.load_directory(name)


def get_variant(name: str) -> Variant:
    """The ruleset with this key or alias (built-in or plugin)."""
    return default_registry().get(name)


def variant_keys() -> list[str]:
    return default_registry().keys()
