"""The rules engine's errors in the visitor's language (kondavo/games/engine_errors.py):
every engine code has a sentence, the sentences are translated in every site language, and
the site's refusals (a bad start position, a bad FEN or PDN on the analysis board, a move
text) come in the language of the request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from kondavo.games.engine_errors import engine_error_text, problem_text, sentence_codes
from kondavo.games.models import Game
from variants import GameRecord, InvalidFEN, UnknownVariant, VariantError, get_variant
from variants.errors import MESSAGES, Problem
from variants.pdn import read_pdn

INTL = get_variant("international")


def _error(call: Any) -> VariantError:
    with pytest.raises(VariantError) as info:
        call()
    return info.value


def test_every_engine_code_has_a_sentence() -> None:
    assert sentence_codes() == set(MESSAGES)


# A PDN whose second move is illegal, in each language (literal expected texts).
BAD_PDN_MOVE = {
    "en": "Game 1, move 1 (32-28): 32-28 is not a legal move here.",
    "fr": "Partie 1, coup 1 (32-28) : 32-28 n'est pas un coup permis ici.",
    "it": "Partita 1, mossa 1 (32-28): 32-28 non è una mossa valida qui.",
    "tr": "1. oyun, 1. hamle (32-28): 32-28 burada kurallara uygun bir hamle değil.",
    "pt-br": "Partida 1, lance 1 (32-28): 32-28 não é um lance legal aqui.",
    "es": "Partida 1, jugada 1 (32-28): 32-28 no es una jugada legal aquí.",
    "pl": "Partia 1, ruch 1 (32-28): 32-28 nie jest tu dozwolonym ruchem.",
}


@pytest.mark.parametrize("lang", sorted(BAD_PDN_MOVE))
def test_a_wrapped_error_is_translated_at_every_level(lang: str) -> None:
    exc = _error(lambda: read_pdn("1. 32-28 32-28 *", INTL))
    with translation.override(lang):
        assert engine_error_text(exc) == BAD_PDN_MOVE[lang]


def test_the_site_languages_are_all_covered() -> None:
    assert {code for code, _name in settings.LANGUAGES} == set(BAD_PDN_MOVE)


def test_side_names_and_plural_forms() -> None:
    position = INTL.parse_fen("W:W21-50:B1-20")
    exc = _error(lambda: INTL.check_position(position))
    with translation.override("pl"):
        assert engine_error_text(exc) == (
            "Ta pozycja nie może wystąpić w partii (Warcaby międzynarodowe): Białe: 30 "
            "pionków, a każda strona zaczyna z 20.")
    with translation.override("tr"):
        assert engine_error_text(exc) == (
            "Bu konum Uluslararası dama oyununda ortaya çıkamaz: Beyaz: 30 taş, ama bir taraf "
            "20 taşla başlar.")
    empty = _error(lambda: INTL.check_position(INTL.parse_fen("W:W:B")))
    with translation.override("fr"):  # French puts a space before a semicolon
        assert engine_error_text(empty) == (
            "Cette position ne peut pas se produire en Dames internationales : Blancs : "
            "aucune pièce ; Noirs : aucune pièce.")
    problems = INTL.position_problems(INTL.parse_fen("W:W:B1-20"))
    assert problems == ["White has no pieces"]  # the English sentence, still a str
    assert isinstance(problems[0], Problem) and problems[0].code == "side_no_pieces"
    with translation.override("es"):
        assert [problem_text(p) for p in problems] == ["Blancas: ninguna pieza"]


def test_mandatory_capture_hint_in_polish_plurals() -> None:
    english = get_variant("english")
    exc = _error(lambda: english.parse_move(english.parse_fen("B:W18:B14"), "14-17"))
    with translation.override("pl"):
        assert engine_error_text(exc) == (
            "14-17 nie jest tu dozwolonym ruchem: bicie jest obowiązkowe i musi zbić 1 bierkę.")
    with translation.override("pt-br"):
        assert engine_error_text(exc) == (
            "14-17 não é um lance legal aqui: a tomada é obrigatória e deve tomar 1 peça.")


def test_a_long_input_is_shown_cut() -> None:
    text = "x" * 300
    exc = _error(lambda: INTL.parse_move(INTL.initial_position(), f"{text}-{text}"))
    with translation.override("en"):
        shown = engine_error_text(exc)
    assert len(shown) < 120 and "…" in shown


def test_an_error_with_its_own_words_gets_its_class_sentence() -> None:
    with translation.override("tr"):
        assert engine_error_text(InvalidFEN("a plugin's own words")) == \
            "Bu, bu kural setine ait bir konum (FEN) değil."
        assert engine_error_text(VariantError("anything")) == \
            "Kural motoru bu girdiyi reddetti."
        assert engine_error_text(UnknownVariant(code="ruleset_unknown_name", name="mars",
                                                known="english")) == \
            "Bilinmeyen kural seti: “mars”."


def test_a_replayed_game_names_the_move() -> None:
    exc = _error(lambda: GameRecord.from_notation(INTL, ["32-28", "32-28"]))
    with translation.override("fr"):
        assert engine_error_text(exc) == "Coup 1 (32-28) : 32-28 n'est pas un coup permis ici."


# ------------------------------------------------------------------ through the site

@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "words"), [
    ("tr", "Bu konum Uluslararası dama oyununda ortaya çıkamaz: Beyaz: 30 taş"),
    ("pt-br", "Esta posição não pode ocorrer em Damas internacionais: Brancas: 30 pedras"),
    ("es", "Esta posición no puede darse en Damas internacionales: Blancas: 30 peones"),
    ("pl", "Ta pozycja nie może wystąpić w partii (Warcaby międzynarodowe): Białe: 30 pionków"),
])
def test_a_refused_start_position_in_the_visitors_language(lang: str, words: str) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.get("/")
    answer = client.post("/games/new/computer", {
        "ruleset": "international", "start_fen": "W:W21-50:B1-15", "level": "1"},
        HTTP_ACCEPT="application/json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_request"
    assert answer.json()["error"]["message"].startswith(words)
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(("lang", "body", "text"), [
    ("tr", {"ruleset": "international", "fen": "X:W31"},
     "FEN okunamadı. Bir FEN, sırası gelen tarafla başlar: W ya da B."),
    ("es", {"ruleset": "international", "pdn": "1. 32-28 32-28 *"},
     "No se pudo leer el PDN. Partida 1, jugada 1 (32-28): 32-28 no es una jugada legal "
     "aquí."),
    ("pl", {"ruleset": "international", "fen": "W:W51:B1"},
     "Nie udało się odczytać FEN. W FEN: „51” nie jest polem gry (Warcaby międzynarodowe)."),
    ("pt-br", {"ruleset": "international", "pdn": "1. 32-28 {oops"},
     "Não foi possível ler o PDN. Linha 1: um comentário aberto com { nunca termina."),
])
def test_the_analysis_board_refuses_in_the_visitors_language(lang: str, body: dict[str, str],
                                                            text: str) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=lang)
    client.get("/analysis/")
    answer = client.post("/analysis/replay", json.dumps(body),
                         content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["error"] == {"code": "bad_request", "message": text}


@pytest.mark.parametrize(("lang", "rates", "words"), [
    ("en", "120/m", "120 a minute"),
    ("en", "60/10m", "60 every 10 minutes"),
    ("tr", "120/m", "dakikada 120"),
    ("pt-br", "400/d", "400 por dia"),
    ("es", "60/10m", "60 cada 10 minutos"),
    ("pl", "60/10m", "60 na 10 minut"),
    ("pl", "5/2h", "5 na 2 godziny"),
])
def test_a_rate_in_words(lang: str, rates: str, words: str) -> None:
    """The rate-limit message says its rate in the visitor's words, not as written in the
    settings ("120/m")."""
    from kondavo.ratelimits import parse_rates, rate_text

    with translation.override(lang):
        assert rate_text(parse_rates(rates)[0]) == words


@pytest.mark.django_db
def test_a_pasted_pdn_too_long_is_refused_in_the_visitors_language() -> None:
    """Refused by the JSON body's limits before the PDN is read: still the visitor's words
    (the limits' own words are the protocol's English)."""
    client = Client(HTTP_ACCEPT_LANGUAGE="tr")
    client.get("/analysis/")
    answer = client.post("/analysis/replay", json.dumps(
        {"ruleset": "international", "pdn": "1. 32-28 " + "x" * 65_000}),
        content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "PDN çok uzun (sınır 64000 karakter)."
    answer = client.post("/analysis/replay", b'{"ruleset": "international", "pdn": ',
                         content_type="application/json")
    assert answer.json()["error"]["message"] == "İstek okunamadı."


@pytest.mark.parametrize("lang", ["tr", "pt-br", "es", "pl"])
def test_the_pages_name_every_refusal_a_socket_can_send(lang: str) -> None:
    """The socket's messages are English: the game and lobby pages show their own sentence
    for each code a game action or a seek can be refused with (frontend/jsi18n.py)."""
    from frontend.jsi18n import js_strings

    with translation.override(lang):
        errors = js_strings()["errors"]
    with translation.override("en"):
        english = js_strings()["errors"]
    assert isinstance(errors, dict) and isinstance(english, dict)
    for code in ("limit_reached", "bad_request", "unavailable", "too_large", "not_allowed",
                 "not_found", "illegal_move", "rate_limited"):
        assert errors[code] and errors[code] != english[code], code
