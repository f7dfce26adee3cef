"""The ruleset registry: built-ins, aliases, duplicates refused, plugins from entry points."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

import variants.registry as registry_module
from variants import Registry, UnknownVariant, Variant, get_variant
from variants.registry import BUILTINS, ENTRY_POINT_GROUP
from variants.rulesets.english import English


class _Copy(English):
    key = "english"
    aliases = ()


class _Fresh(English):
    key = "fresh-english"
    aliases = ("fresh",)


def test_aliases() -> None:
    assert get_variant("Polish").key == "international"
    assert get_variant(" checkers ").key == "english"


def test_duplicate_key_or_alias_is_refused() -> None:
    registry = Registry(BUILTINS)
    with pytest.raises(ValueError, match="already taken"):
        registry.register(_Copy())

    class _Alias(English):
        key = "other"
        aliases = ("polish",)

    with pytest.raises(ValueError, match="polish"):
        registry.register(_Alias())
    assert "other" not in registry
    assert len(registry) == 5


def test_only_variants_can_register() -> None:
    with pytest.raises(TypeError):
        Registry().register(object())  # type: ignore[arg-type]


def _fake_entry_points(*eps: EntryPoint):  # type: ignore[no-untyped-def]
    def fake(group: str) -> list[EntryPoint]:
        assert group == ENTRY_POINT_GROUP
        return list(eps)

    return fake


def test_plugins_load_and_a_broken_one_is_logged_and_skipped(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    module = __name__
    eps = (
        EntryPoint("broken", "no_such_module_kondavo:THING", ENTRY_POINT_GROUP),
        EntryPoint("dupe", f"{module}:_Copy", ENTRY_POINT_GROUP),
        EntryPoint("fresh", f"{module}:_Fresh", ENTRY_POINT_GROUP),
    )
    monkeypatch.setattr(registry_module, "entry_points", _fake_entry_points(*eps))
    registry = Registry(BUILTINS)
    with caplog.at_level(logging.ERROR, logger="variants.registry"):
        registry.load_entry_points()
    assert registry.keys() == ["international", "english", "brazilian", "spanish", "turkish",
                               "fresh-english"]
    assert isinstance(registry.get("fresh"), Variant)
    skipped = [r.getMessage() for r in caplog.records]
    assert any("broken" in m for m in skipped)
    assert any("dupe" in m for m in skipped)


def test_unknown_name() -> None:
    with pytest.raises(UnknownVariant, match="known: international"):
        Registry(BUILTINS).get("chess")
