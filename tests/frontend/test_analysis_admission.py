"""The analysis board's engine requests: admission (one in flight per visitor, the sliding
rate by address and by session, the site-wide cap), the task on a literal position, the
embedded mode's bounded pool, the ``analysis`` Celery queue end to end, and endgame tables
never solved by a process serving requests."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import ThreadSensitiveContext
from django.core.cache import cache
from django.test import AsyncClient, Client, RequestFactory

import bots.analysis
from bots.engine import tables
from frontend import admission
from kondavo import ratelimits
from variants import get_variant

pytestmark = pytest.mark.django_db

EVAL = "/analysis/eval"
WON = {"ruleset": "english", "fen": "W:W18:B14", "depth": 2, "time": 0.05}


@pytest.fixture(autouse=True)
def embedded(settings: Any) -> None:
    cache.clear()
    settings.KONDAVO_BOT_INPROCESS = True  # the pool; the Celery path has its own test
    settings.KONDAVO_ANALYSIS_WAIT_SECONDS = 20.0


def post(client: Client, body: dict[str, Any], **extra: Any) -> Any:
    return client.post(EVAL, data=json.dumps(body), content_type="application/json", **extra)


class PeerClient(AsyncClient):
    """An async test client connecting from ``ip`` (the ASGI scope's client)."""

    def __init__(self, ip: str) -> None:
        super().__init__()
        self.ip = ip

    def _base_scope(self, **request: Any) -> dict[str, Any]:
        scope: dict[str, Any] = super()._base_scope(**request)
        scope["client"] = [self.ip, 0]
        return scope


async def apost(body: dict[str, Any], ip: str = "127.0.0.1") -> Any:
    """One request as Django's ASGI handler serves it under Daphne: in a thread-sensitive
    context of its own (the test client alone would run every request's sync middleware
    in one shared thread, one request after the other)."""
    async with ThreadSensitiveContext():
        return await PeerClient(ip).post(EVAL, data=json.dumps(body),
                                         content_type="application/json")


class Gate:
    """Holds every search of ``bots.analysis.analyse`` until opened."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.entered = threading.Semaphore(0)
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()

    def __call__(self, variant: Any, target: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.release()
        try:
            assert self.open.wait(30)
            return REAL_ANALYSE(variant, target, depth=1, time_limit=0.05)
        finally:
            with self._lock:
                self.running -= 1


REAL_ANALYSE = bots.analysis.analyse


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    held = Gate()
    monkeypatch.setattr(bots.analysis, "analyse", held)
    yield held
    held.open.set()


# --------------------------------------------------------------------------- the task

@pytest.mark.embedded
def test_the_task_answers_a_literal_position() -> None:
    from bots.tasks import analysis_eval

    # English: White's man on 18 takes the last black man on 14 (18x9): a win in one ply.
    answer = analysis_eval(ruleset="english", fen="W:W18:B14", moves=[], depth=4,
                           time_limit=0.2)
    assert answer["pv"] == ["18x9"] and answer["mate_in"] == 1 and not answer["game_over"]
    # From the start, after 11-15 22-18 Black must take back: 15x22 is the only move.
    start = get_variant("english").initial_fen
    answer = analysis_eval(ruleset="english", fen=start, moves=["11-15", "22-18"], depth=3,
                           time_limit=0.2)
    assert answer["pv"][0] == "15x22"
    json.dumps(answer)  # JSON-ready
    over = analysis_eval(ruleset="english", fen="B:W18:B", moves=[], depth=3, time_limit=0.1)
    assert over["game_over"] and over["winner"] == "white"
    # Bad input: an error answer, nothing raised (the web has checked it already).
    assert analysis_eval(ruleset="nope", fen="W:W18:B14", moves=[], depth=1,
                         time_limit=0.1)["error"]["code"] == "bad_request"
    bad = analysis_eval(ruleset="english", fen=start, moves=["11-15", "11-15"], depth=1,
                        time_limit=0.1)
    assert bad["error"]["code"] == "bad_request" and "11-15" in bad["error"]["message"]


def test_the_task_caps_depth_and_time(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[Any, Any]] = []

    def spy(variant: Any, target: Any, *, depth: Any = None, time_limit: Any = None) -> Any:
        seen.append((depth, time_limit))
        return REAL_ANALYSE(variant, target, depth=1, time_limit=0.05)

    monkeypatch.setattr(bots.analysis, "analyse", spy)
    bots.analysis.analyse_request(ruleset="english", fen="W:W18:B14", depth=99,
                                  time_limit=60)
    assert seen == [(bots.analysis.REQUEST_MAX_DEPTH, bots.analysis.REQUEST_MAX_TIME)]


# --------------------------------------------------------------------------- admission

@pytest.mark.timing
@pytest.mark.embedded
def test_one_request_in_flight_per_visitor(gate: Gate) -> None:
    """A second request while the first is searched: 429 busy + Retry-After; another
    visitor is served meanwhile; once answered, the first visitor may ask again."""

    async def scenario() -> tuple[Any, Any, Any]:
        first = asyncio.ensure_future(apost(WON))
        await asyncio.to_thread(gate.entered.acquire, True, 30)
        second = await apost(WON)
        other = asyncio.ensure_future(apost(WON, ip="10.9.9.9"))  # waits for the pool
        await asyncio.sleep(0.2)
        assert not other.done()
        gate.open.set()
        return await first, second, await other

    first, second, other = asyncio.run(scenario())
    assert first.status_code == 200 and first.json()["pv"] == ["18x9"]
    assert second.status_code == 429 and second.json()["error"]["code"] == "busy"
    assert int(second["Retry-After"]) >= 1
    assert other.status_code == 200
    assert post(Client(), WON).status_code == 200  # the hold was given back
    assert admission.in_use() == 0


def test_visitors_without_a_session_are_told_apart_by_their_browser(settings: Any) -> None:
    """Two browsers behind one address, neither with a session (reading the analysis page
    makes none): each has its own request in flight; the same browser twice is busy; both
    count against the address's one rate."""
    settings.KONDAVO_ANALYSIS_RATE = 3
    factory = RequestFactory()

    def request(csrf: str | None) -> Any:
        req = factory.post(EVAL, REMOTE_ADDR="10.8.0.1")
        if csrf:
            req.COOKIES[settings.CSRF_COOKIE_NAME] = csrf
        return req

    first = admission.admit(request("a" * 32))
    second = admission.admit(request("b" * 32))  # another browser: not busy
    with pytest.raises(admission.Refused) as busy:
        admission.admit(request("a" * 32))
    assert busy.value.status == 429 and busy.value.code == "busy"
    third = admission.admit(request(None))  # no cookie at all: the address is the visitor
    with pytest.raises(admission.Refused) as busy_ip:
        admission.admit(request(None))
    assert busy_ip.value.code == "busy"
    for ticket in (first, second, third):
        admission.release(ticket)
    with pytest.raises(admission.Refused) as rate:  # three from 10.8.0.1 already
        admission.admit(request("c" * 32))
    assert rate.value.code == "rate_limited"
    assert "a" * 32 not in " ".join(str(k) for k in first.keys)  # only a digest is kept
    assert admission.in_use() == 0


def test_rate_by_address_ignores_a_forged_header(settings: Any) -> None:
    settings.KONDAVO_ANALYSIS_RATE = 3
    client = Client()
    codes = [post(client, WON, HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
                  HTTP_X_REAL_IP=f"198.51.100.{i}") for i in range(5)]
    assert [r.status_code for r in codes] == [200, 200, 200, 429, 429]
    refused = codes[3]
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(refused["Retry-After"]) <= 120  # at most two windows
    # Another address has its own budget.
    assert post(client, WON, REMOTE_ADDR="10.1.2.3").status_code == 200


def test_rate_by_session_follows_the_visitor_across_addresses(settings: Any) -> None:
    settings.KONDAVO_ANALYSIS_RATE = 3
    client = Client()
    session = client.session
    session["seen"] = True
    session.save()  # a real session: its key is counted besides the address
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    codes = [post(client, WON, REMOTE_ADDR=f"10.0.0.{i}").status_code for i in range(4)]
    assert codes == [200, 200, 200, 429]
    # A made-up session cookie is no session: only its address counts (its own budget).
    forged = Client()
    forged.cookies[settings.SESSION_COOKIE_NAME] = "x" * 32
    assert post(forged, WON, REMOTE_ADDR="10.0.1.1").status_code == 200


@pytest.mark.embedded
def test_site_wide_cap_answers_503_with_retry_after(settings: Any) -> None:
    settings.KONDAVO_ANALYSIS_MAX_QUEUED = 2
    factory = RequestFactory()
    held = [admission.admit(factory.post(EVAL, REMOTE_ADDR=f"10.5.0.{i}")) for i in range(2)]
    assert admission.in_use() == 2
    full = post(Client(), WON)
    assert full.status_code == 503 and full.json()["error"]["code"] == "queue_full"
    assert int(full["Retry-After"]) >= 1
    admission.release(held[0])
    assert post(Client(), WON).status_code == 200
    admission.release(held[1])
    assert admission.in_use() == 0


def test_admission_order_and_release_on_refusal(settings: Any) -> None:
    """The visitor's hold is given back when the rate or the cap refuses."""
    settings.KONDAVO_ANALYSIS_RATE = 1
    settings.KONDAVO_ANALYSIS_MAX_QUEUED = 1
    factory = RequestFactory()
    ticket = admission.admit(factory.post(EVAL, REMOTE_ADDR="10.7.0.1"))
    with pytest.raises(admission.Refused) as full:
        admission.admit(factory.post(EVAL, REMOTE_ADDR="10.7.0.2"))
    assert full.value.status == 503
    admission.release(ticket)
    with pytest.raises(admission.Refused) as rate:  # 10.7.0.2 used its one request
        admission.admit(factory.post(EVAL, REMOTE_ADDR="10.7.0.2"))
    assert rate.value.status == 429 and rate.value.code == "rate_limited"
    assert cache.get(f"{admission.PREFIX}:busy:ip:10.7.0.2") is None
    assert admission.in_use() == 0


# --------------------------------------------------------------------------- embedded pool

@pytest.mark.embedded
def test_embedded_pool_is_bounded(gate: Gate, settings: Any,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten visitors at once with a cap of 4: 4 admitted, 6 refused with 503, and the pool
    runs one search at a time (KONDAVO_ANALYSIS_THREADS=1), never on the event loop."""
    settings.KONDAVO_ANALYSIS_MAX_QUEUED = 4
    assert bots.analysis.pool_size() == 1
    loop_threads: set[int] = set()
    search_threads: set[str] = set()
    real_gate = gate.__call__

    def watched(variant: Any, target: Any, **kwargs: Any) -> Any:
        search_threads.add(threading.current_thread().name)
        return real_gate(variant, target, **kwargs)

    monkeypatch.setattr(bots.analysis, "analyse", watched)

    async def scenario() -> list[Any]:
        loop_threads.add(threading.get_ident())
        pending = [asyncio.ensure_future(apost(WON, ip=f"10.3.0.{i}"))
                   for i in range(10)]
        await asyncio.to_thread(gate.entered.acquire, True, 30)
        done, _ = await asyncio.wait(pending, timeout=5, return_when=asyncio.FIRST_COMPLETED)
        while len(done) < 6:  # the refusals come back at once
            more, _ = await asyncio.wait(pending, timeout=5)
            done = {f for f in pending if f.done()}
            if not more:
                break
        gate.open.set()
        return list(await asyncio.gather(*pending))

    answers = asyncio.run(scenario())
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * 4 + [503] * 6
    assert gate.most == 1
    assert search_threads and all(n.startswith("kondavo-analysis") for n in search_threads)
    assert admission.in_use() == 0


def test_a_review_of_a_long_game_is_answered(settings: Any) -> None:
    """An honest review: one request per position, each after the previous answer, as the
    page does; 61 positions of a 60-move game all answered within the default rate."""
    settings.KONDAVO_ANALYSIS_RATE = 120
    variant = get_variant("english")
    from variants import GameRecord

    record = GameRecord.new(variant)
    while len(record.moves) < 60 and variant.legal_moves(record.position):
        record.push(variant.legal_moves(record.position)[-1])
    client = Client()
    fens = [variant.format_fen(p) for p in record.positions]
    codes = [post(client, {"ruleset": "english", "fen": fen, "time": 0.05,
                           "depth": 2}).status_code for fen in fens]
    assert len(codes) == len(record.moves) + 1 and set(codes) == {200}


# --------------------------------------------------------------------------- tables

def _fresh_variant() -> Any:
    return type(get_variant("brazilian"))()  # a new ruleset object: a new process engine


@pytest.fixture
def empty_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(tables.MODE_ENV, "auto")
    monkeypatch.setenv(tables.DIR_ENV, str(tmp_path))
    monkeypatch.setenv(tables.MB_ENV, "1")
    monkeypatch.setattr(tables, "_solver", tables.solver())  # restored after the test
    return tmp_path


def test_a_web_process_never_solves_tables(empty_tables: Path, settings: Any) -> None:
    """Not the embedded mode (bots.apps): an engine in this process gets no tables when
    none are on disk, and a search answers without them and writes nothing."""
    from bots.apps import tables_solved_off_requests
    from bots.engine.native import native_engine

    settings.KONDAVO_BOT_INPROCESS = False
    tables_solved_off_requests()
    assert tables.solver() is None
    variant = _fresh_variant()
    engine = native_engine(variant)
    answer = bots.analysis.analyse(variant, variant.parse_fen("W:WKa1,Kc1,Ke1:BKh2"),
                                   time_limit=0.1)
    assert engine.table_pieces == 0 and answer.mate_in is None
    assert list(empty_tables.iterdir()) == []
    # A worker wrote them since: the engine picks them up from the directory.
    tables.ensure_cached("brazilian")
    engine.tables_recheck_at = 0.0
    assert native_engine(variant) is engine and engine.table_pieces == 3
    assert list(empty_tables.iterdir()) != []


@pytest.mark.embedded
def test_embedded_tables_are_solved_by_the_pool(empty_tables: Path, settings: Any,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from bots.apps import tables_solved_off_requests
    from bots.engine.native import native_engine

    settings.KONDAVO_BOT_INPROCESS = True
    tables_solved_off_requests()
    solved_in: list[str] = []
    real_solve = tables.solve

    def solve(engine: Any, pieces: int) -> bytes:
        solved_in.append(threading.current_thread().name)
        return real_solve(engine, pieces)

    monkeypatch.setattr(tables, "solve", solve)
    variant = _fresh_variant()
    engine = native_engine(variant)  # returns at once; the pool solves
    bots.analysis.background_pool().submit(lambda: None).result(60)  # behind the solve
    assert solved_in and solved_in[0].startswith("kondavo-analysis")
    assert engine.table_pieces == 3 and list(empty_tables.glob("brazilian-3p-*.kdtb"))


def test_a_worker_solves_missing_tables_when_it_starts(empty_tables: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from kondavo.celery import solve_missing_tables

    class Queue:
        def __init__(self, name: str) -> None:
            self.name = name

    class Consumer:
        def __init__(self, *names: str) -> None:
            self.task_consumer = type("TC", (), {"queues": [Queue(n) for n in names]})()

    monkeypatch.setattr(tables, "variant_keys", lambda: ["brazilian", "turkish"])
    niceness: list[int] = []
    real_solve = tables.solve

    def solve(engine: Any, pieces: int) -> bytes:
        import os

        niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return real_solve(engine, pieces)

    monkeypatch.setattr(tables, "solve", solve)
    assert solve_missing_tables(Consumer("celery")) is None  # housekeeping: not its job
    thread = solve_missing_tables(Consumer("analysis"))
    assert thread is not None
    thread.join(120)
    # (Turkish's tables end the game at its king-against-man rule: it gets them too.)
    assert sorted(p.name.split("-")[0] for p in empty_tables.glob("*.kdtb")) == [
        "brazilian", "turkish"]
    assert niceness == [19, 19]  # the worker's bot moves come first


def test_processes_solving_the_same_tables_together_solve_them_once(
        empty_tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers starting together each solve what is missing: the first takes the table's
    lock file and solves, the others wait for it and read the file it wrote."""
    from bots.engine.native import NativeEngine

    solved: list[int] = []
    real_solve = tables.solve

    def slow_solve(engine: Any, pieces: int) -> bytes:
        solved.append(pieces)
        time.sleep(0.5)  # long enough for the others to reach the lock
        return real_solve(engine, pieces)

    monkeypatch.setattr(tables, "solve", slow_solve)
    engines = [NativeEngine(_fresh_variant(), tt_mb=1) for _ in range(3)]
    results: list[Any] = [None] * 3

    def load(i: int) -> None:
        results[i] = tables.load_or_solve(engines[i], 3)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert solved == [3]
    size = int(engines[0].core.tables_size(3))
    assert all(r is not None and len(r) == size for r in results)
    assert bytes(results[0]) == bytes(results[1]) == bytes(results[2])
    assert len(list(empty_tables.glob("brazilian-3p-*.kdtb"))) == 1


# --------------------------------------------------------------------------- the worker path

@pytest.mark.timing
@pytest.mark.services
def test_the_analysis_queue_end_to_end(settings: Any, redis_url: str) -> None:
    """Not embedded: the view sends the job to the ``analysis`` queue, a real Celery worker
    (Redis broker and result backend) searches, the view awaits the published result."""
    from celery.contrib.testing.worker import start_worker

    from kondavo.celery import app

    settings.KONDAVO_BOT_INPROCESS = False
    with start_worker(app, pool="solo", concurrency=1, queues=["analysis"],
                      perform_ping_check=False, shutdown_timeout=10):
        started = time.monotonic()
        answer = post(Client(), WON)
        assert answer.status_code == 200, answer.content
        assert answer.json()["pv"] == ["18x9"]
        # A PDN and a ply: the worker replays the moves from the start position.
        pdn = '[GameType "21"]\n1. 11-15 22-18 *'
        replayed = post(Client(), {"ruleset": "english", "pdn": pdn, "ply": 2, "depth": 3,
                                   "time": 0.1}, REMOTE_ADDR="10.8.0.1")
        assert replayed.status_code == 200 and replayed.json()["pv"][0] == "15x22"
        assert time.monotonic() - started < 20
    assert admission.in_use() == 0


@pytest.mark.timing
@pytest.mark.services
def test_no_worker_is_a_503_not_a_hang(settings: Any, redis_url: str) -> None:
    settings.KONDAVO_BOT_INPROCESS = False
    settings.KONDAVO_ANALYSIS_WAIT_SECONDS = 1.0
    answer = post(Client(), WON)
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "unavailable"
    assert int(answer["Retry-After"]) >= 1
    assert admission.in_use() == 0


# --------------------------------------------------------------------------- sliding window

@pytest.mark.embedded
def test_the_window_slides() -> None:
    """A client that spends its rate at the end of one window cannot spend it again at the
    start of the next (a fixed window would let 20 through in two seconds)."""
    rate = ratelimits.Rate(10, 60)
    t0 = 6_000_000 * 60.0  # the start of a window
    assert not any(ratelimits.hit("slide", rate, t0 + 59)[0] for _ in range(10))
    over, wait = ratelimits.hit("slide", rate, t0 + 61)
    assert over and wait >= 1
    # By the end of the next window the previous one's share has faded.
    assert not ratelimits.hit("slide", rate, t0 + 119.5)[0]


def test_retry_after_is_honest() -> None:
    rate = ratelimits.Rate(5, 10)
    t0 = 7_000_000 * 10.0
    for _ in range(5):
        assert not ratelimits.hit("honest", rate, t0 + 2)[0]
    over, wait = ratelimits.hit("honest", rate, t0 + 3)
    assert over
    assert not ratelimits.hit("honest", rate, t0 + 3 + wait)[0]


def test_rate_settings_parse() -> None:
    assert ratelimits.parse_rate("10/m") == ratelimits.Rate(10, 60)
    assert ratelimits.parse_rate("100/5m") == ratelimits.Rate(100, 300)
    assert ratelimits.parse_rate(120) == ratelimits.Rate(120, 60)
    assert ratelimits.parse_rate("") is None and ratelimits.parse_rate("0/h") is None
    with pytest.raises(ValueError):
        ratelimits.parse_rate("lots")


def test_rate_limited_carries_retry_after(settings: Any) -> None:
    settings.KONDAVO_TEST_RATE = "2/h"
    for _ in range(2):
        ratelimits.rate_limit(action="t", keys=["ip:1"], setting="KONDAVO_TEST_RATE")
    with pytest.raises(ratelimits.RateLimited) as refused:
        ratelimits.rate_limit(action="t", keys=["ip:1"], setting="KONDAVO_TEST_RATE")
    assert refused.value.code == "rate_limited" and refused.value.retry_after > 60
