"""The registry of rulesets: the built-ins plus ``kondavo.variants`` entry-point plugins."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib.metadata import entry_points

from variants.base import Variant
from variants.errors import UnknownVariant
from variants.rulesets.brazilian import BRAZILIAN
from variants.rulesets.english import ENGLISH
from variants.rulesets.international import INTERNATIONAL
from variants.rulesets.spanish import SPANISH
from variants.rulesets.turkish import TURKISH

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "kondavo.variants"
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
        names = [key, *(a.lower() for a in variant.aliases)]
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
            raise UnknownVariant(
                f"unknown ruleset {name!r}; known: {', '.join(self._by_key)}") from None

    def by_gametype(self, gametype: int | str) -> Variant:
        """The ruleset whose PDN GameType number is ``gametype`` (``20``, ``"20,W,10,10,N2,0"``)."""
        number = str(gametype).split(",", 1)[0].strip()
        for variant in self._by_key.values():
            if variant.pdn_gametype.split(",", 1)[0].strip() == number and number:
                return variant
        raise UnknownVariant(f"no ruleset has PDN GameType {number or gametype!r}")

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


_default: Registry | None = None


def default_registry() -> Registry:
    global _default
    if _default is None:
        registry = Registry(BUILTINS)
        registry.load_entry_points()
        _default = registry
    return _default


def get_variant(name: str) -> Variant:
    """The ruleset with this key or alias (built-in or plugin)."""
    return default_registry().get(name)


def variant_keys() -> list[str]:
    return default_registry().keys()
