"""Training data in resumable chunks, and the phased fit on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bots.engine.features import (
    PHASES,
    REGION_STATES,
    FittedEvaluator,
    space_for,
    weights_from_model,
)
from bots.training import generate
from variants import get_variant

# Two chunks of a few seconds at a tiny node budget, English.
CHUNKS = ["--ruleset", "english", "--nodes", "300", "--minutes", "0.02", "--chunks", "2",
          "--seed", "7", "--max-plies", "60"]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="ascii").splitlines())


def test_chunks_are_recorded_and_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert generate.main(CHUNKS) == 0
    data = tmp_path / ".training-data"
    chunks = [data / "english-engine-7.txt", data / "english-engine-8.txt"]
    for chunk in chunks:
        record = json.loads(generate.record_path(chunk).read_text(encoding="ascii"))
        assert record["command"] == "python -m bots.training.generate " + " ".join(CHUNKS)
        assert record["nodes"] == 300 and record["games"] >= 1
        assert record["positions"] == _lines(chunk) > 0
        assert (record["white_wins"] + record["draws"] + record["black_wins"]
                == record["games"])
        for line in chunk.read_text(encoding="ascii").splitlines():
            parts = line.split()
            assert len(parts) == 7 and parts[5] in ("1.0", "0.5", "0.0")
    first = chunks[0].read_text(encoding="ascii")
    # Run again: finished chunks are skipped; an unfinished one (no record) starts afresh.
    generate.record_path(chunks[1]).unlink()
    chunks[1].write_text("garbage\n", encoding="ascii")
    capsys.readouterr()
    assert generate.main(CHUNKS) == 0
    assert "english-engine-7.txt: done, skipped" in capsys.readouterr().out
    assert chunks[0].read_text(encoding="ascii") == first
    assert generate.record_path(chunks[1]).exists()
    assert "garbage" not in chunks[1].read_text(encoding="ascii")


def test_bad_chunk_arguments_are_refused(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        generate.main(["--ruleset", "english", "--chunks", "0"])
    with pytest.raises(SystemExit):
        generate.main(["--ruleset", "english", "--chunks", "2", "--out", "x.txt"])
    assert not (tmp_path / ".training-data").exists()


def _fitted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int,
            *fit_args: str) -> dict[str, Any]:
    """Six seconds of English self-play at 300 nodes, fitted with ``fit_args``: the model."""
    from bots.training import fit

    monkeypatch.chdir(tmp_path)
    assert generate.main(["--ruleset", "english", "--nodes", "300", "--minutes", "0.1",
                          "--seed", str(seed)]) == 0
    data = tmp_path / ".training-data" / "english-engine.txt"
    out = tmp_path / "eval.json"
    assert fit.main(["--ruleset", "english", "--data", str(data), *fit_args,
                     "--out", str(out)]) == 0
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return doc


def test_the_fit_writes_a_phased_model(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("scipy")
    from bots.training import fit

    doc = _fitted(tmp_path, monkeypatch, 3, "--reg", "1e-3")
    data = tmp_path / ".training-data" / "english-engine.txt"
    variant = get_variant("english")
    space = space_for(variant)
    for name in ("full", "lite"):
        model = doc[name]
        assert set(PHASES) <= set(model)
        weights = weights_from_model(space, model)
        assert weights[:space.nfeatures] != weights[space.nfeatures:]  # two sets
        mean_man = (model["middle"]["scalars"]["man"] + model["ending"]["scalars"]["man"]) / 2
        assert mean_man == pytest.approx(100, abs=0.02)
        FittedEvaluator(variant, weights)
    assert not any(doc["lite"][p].get("patterns") for p in PHASES)
    assert not any(doc["lite"][p].get("regions") for p in PHASES)
    # The full model learns region tables (sparse: the states the data has) and uses them.
    regions = doc["full"]["middle"]["regions"]
    assert len(regions) == space.nregions and sum(len(t) for t in regions) > 100
    assert FittedEvaluator(variant, weights_from_model(space, doc["full"])).use_regions
    assert doc["fit"]["lambda"]["regions"] in (1e-3, 3e-3, 1e-2)
    assert doc["data"]["quiet_positions"] > 0
    bare = tmp_path / "bare.json"
    assert fit.main(["--ruleset", "english", "--data", str(data), "--reg", "1e-3",
                     "--no-regions", "--out", str(bare)]) == 0
    plain = json.loads(bare.read_text(encoding="utf-8"))
    assert not any(plain["full"][p].get("regions") for p in PHASES)
    assert plain["full"]["middle"].get("patterns") and plain["fit"]["lambda"]["regions"] is None
    assert "committed_before" in doc["fit"]["validation_cross_entropy"]


def test_a_regions_only_fit_keeps_the_committed_weights(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Strong L2 on everything but the regions, the prior at its own fitted scale: the
    committed evaluation stays as it is (to rounding) and the region tables are learned
    on top of it."""
    pytest.importorskip("scipy")
    from bots.engine.features import load_weights

    committed = load_weights(get_variant("english"))
    assert committed is not None
    doc = _fitted(tmp_path, monkeypatch, 5, "--score-weight", "1.0", "--reg", "30",
                  "--reg-scalars", "30", "--reg-regions", "1e-4", "--prior-scale", "fitted")
    assert doc["fit"]["lambda"]["prior_scale"] == "fitted"
    space = space_for(get_variant("english"))
    weights = weights_from_model(space, doc["full"])
    base = [i for i in range(space.nweights) if i % space.nfeatures < space.reg_base]
    # Weights are integers in 1/64 centi-men: the base moves by less than a centi-man.
    assert max(abs(weights[i] - committed[i]) for i in base) <= 64
    regions = doc["full"]["middle"]["regions"]
    assert sum(len(t) for t in regions) > 100
    assert max(abs(v) for t in regions for v in t.values()) > 0.5


@pytest.mark.parametrize("ruleset", ["english", "international", "turkish"])
def test_every_region_has_the_same_shape(ruleset: str) -> None:
    """A region's squares (ascending) stand at the same offsets from its corner in every
    region of the board, so a state is the same formation wherever a tied table reads it."""
    space = space_for(get_variant(ruleset))
    coords = {i: rc for rc, i in space._index.items()}
    shapes = set()
    for reg in space.regions:
        r0 = min(coords[q][0] for q in reg)
        c0 = min(coords[q][1] for q in reg)
        shapes.add(tuple((coords[q][0] - r0, coords[q][1] - c0) for q in reg))
    assert space.nregions > 1 and len(shapes) == 1


def test_tied_regions_share_one_table_per_row(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``--tie-regions rows``: the regions over the same rows get the same table, learned
    from all of them; different rows get different tables."""
    pytest.importorskip("scipy")
    from bots.training import fit

    doc = _fitted(tmp_path, monkeypatch, 3, "--reg", "1e-3", "--reg-regions", "1e-3",
                  "--tie-regions", "rows", "--score-weight", "1.0")
    assert doc["fit"]["lambda"]["tie_regions"] == "rows"
    space = space_for(get_variant("english"))
    ranks = [min(space.rel_rank[0][q] for q in reg) for reg in space.regions]
    assert sorted(set(ranks)) == [0, 2, 4] and len(ranks) == 9
    for phase in PHASES:
        # Each shared table is written once; the group's other members name its leader.
        stored = doc["full"][phase]["regions"]
        leaders = [ranks.index(rank) for rank in ranks]
        assert stored == [stored[r] if r == lead else lead
                          for r, lead in enumerate(leaders)]
        tables = [stored[lead] for lead in leaders]
        assert all(isinstance(t, dict) for t in tables)
        assert tables[ranks.index(0)] != tables[ranks.index(4)]
        assert sum(len(t) for t in tables) > 100
    weights = weights_from_model(space, doc["full"])
    for r, lead in enumerate(ranks.index(rank) for rank in ranks):
        assert (weights[space.reg_base + r * REGION_STATES:][:REGION_STATES]
                == weights[space.reg_base + lead * REGION_STATES:][:REGION_STATES])
    ties = fit.region_ties(space, "all", len(PHASES))
    assert ties is not None and ties.shape == (space.nweights, space.nweights)
    first = space.reg_base
    last = space.reg_base + (space.nregions - 1) * REGION_STATES
    assert ties[last + 5, first + 5] == 1 and ties[first + 5, first + 5] == 1
    assert fit.region_ties(space, "none", len(PHASES)) is None


def test_region_tables_for_the_middle_game_only(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``--region-phases middle``: the middle game's region tables are learned, the
    ending's stay zero (not written), and the evaluation reads the model."""
    pytest.importorskip("scipy")
    doc = _fitted(tmp_path, monkeypatch, 3, "--reg", "1e-3", "--reg-regions", "1e-3",
                  "--tie-regions", "rows", "--region-phases", "middle")
    assert doc["fit"]["lambda"]["region_phases"] == "middle"
    assert doc["fit"]["lambda"]["regions"] == 1e-3
    middle, ending = doc["full"]["middle"], doc["full"]["ending"]
    assert sum(len(t) for t in middle["regions"] if isinstance(t, dict)) > 100
    assert "regions" not in ending and ending.get("patterns")
    space = space_for(get_variant("english"))
    weights = weights_from_model(space, doc["full"])
    nf = space.nfeatures
    assert any(weights[space.reg_base:nf]) and not any(weights[nf + space.reg_base:])
    assert FittedEvaluator(get_variant("english"), weights).use_regions
