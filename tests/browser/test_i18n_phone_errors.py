"""On a phone whose browser asks for Turkish, Brazilian Portuguese, Spanish or Polish, the
refusals read in that language: a bad FEN and a bad PDN on the analysis board (the rules
engine's errors, translated by code at the site's edge), an impossible position from the
editor's "continue from here", and a refused game on the home page, which is shown next to
the button with every choice kept (390x844, real Chromium, the real server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

# lang -> (ruleset, bad FEN text, bad PDN (the same move twice) text, impossible position
# text, home refusal text). Every text is what the page shows, word for word.
CASES: dict[str, tuple[str, str, str, str, str]] = {
    "tr": ("turkish",
           "FEN okunamadı. Bir FEN, sırası gelen tarafla başlar: W ya da B.",
           "PDN okunamadı. 1. oyun, 1. hamle (a3-a4): a3-a4 burada kurallara uygun bir "
           "hamle değil.",
           "Bu konum Türk daması oyununda ortaya çıkamaz: Beyaz: hiç taş yok.",
           "Bilgisayara karşı zaten 3 oyununuz sürüyor: önce birini bitirin ya da terk edin."),
    "pt-br": ("brazilian",
              "Não foi possível ler o FEN. Um FEN começa pelo lado que joga: W ou B.",
              "Não foi possível ler o PDN. Partida 1, lance 1 (e3-d4): e3-d4 não é um lance "
              "legal aqui.",
              "Esta posição não pode ocorrer em Damas brasileiras: Brancas: nenhuma peça.",
              "Você já tem 3 partidas em andamento contra o computador: termine ou abandone "
              "uma antes."),
    "es": ("spanish",
           "No se pudo leer el FEN. Un FEN empieza por el bando que mueve: W o B.",
           "No se pudo leer el PDN. Partida 1, jugada 1 (10-14): 10-14 no es una jugada legal "
           "aquí.",
           "Esta posición no puede darse en Damas españolas: Blancas: ninguna pieza.",
           "Ya tienes 3 partidas en curso contra el ordenador: termina o abandona una "
           "primero."),
    "pl": ("international",
           "Nie udało się odczytać FEN. FEN zaczyna się od strony na posunięciu: W lub B.",
           "Nie udało się odczytać PDN. Partia 1, ruch 1 (32-28): 32-28 nie jest tu "
           "dozwolonym ruchem.",
           "Ta pozycja nie może wystąpić w partii (Warcaby międzynarodowe): Białe: brak "
           "bierek.",
           "Masz już 3 trwające partie z komputerem: najpierw dokończ lub poddaj jedną z "
           "nich."),
}

# A position where White has no pieces (and Black's one man is not on its crowning row).
WHITE_HAS_NONE = {"turkish": "W:W:Bd5", "brazilian": "W:W:Bd4", "spanish": "W:W:B14",
                  "international": "W:W:B23"}

ENGLISH_WORDS = ("FEN starts", "not a legal move", "could not be read", "cannot occur",
                 "no pieces", "You already have")


def _load_error(page: Any, *, pdn: str = "", fen: str = "") -> str:
    page.evaluate("document.getElementById('load-error').textContent = ''")
    page.fill("#an-pdn", pdn)
    page.fill("#an-fen", fen)
    page.click("#btn-load")
    page.wait_for_function("document.getElementById('load-error').textContent.length > 0")
    return str(page.locator("#load-error").inner_text())


@pytest.mark.parametrize("lang", sorted(CASES))
def test_refusals_read_in_the_visitors_language_on_a_phone(
        daphne_server: str, new_page: Any, console: Any, lang: str,
        artifacts_dir: Path) -> None:
    ruleset, bad_fen, bad_pdn, impossible, refused = CASES[lang]
    console.allowed.extend(["400 (Bad Request)", "409 (Conflict)"])  # the refusals
    page = new_page(width=390, height=844, locale=lang)

    # The analysis board: a bad FEN, then a PDN whose first move is played twice.
    page.goto(f"{daphne_server}/analysis/")
    assert page.evaluate("document.documentElement.lang") == lang
    page.select_option("#an-ruleset", ruleset)
    assert _load_error(page, fen="X:W31:B1") == bad_fen
    move = bad_pdn.split("(")[1].split(")")[0]
    assert _load_error(page, pdn=f"1. {move} {move} *") == bad_pdn
    page.screenshot(path=str(artifacts_dir / f"phone-errors-analysis-{lang}.png"),
                    full_page=True)

    # The editor: White has no pieces; "continue from here" is refused, the board stays.
    page.fill("#an-pdn", "")
    page.fill("#an-fen", WHITE_HAS_NONE[ruleset])
    page.click("#btn-load")
    page.wait_for_function("document.getElementById('load-error').textContent === ''")
    page.evaluate("document.getElementById('continue').open = true")
    page.locator("#continue-form button[type=submit]").first.click()
    page.wait_for_function("document.getElementById('continue-error').textContent.length > 0")
    assert page.locator("#continue-error").inner_text() == impossible
    assert "/analysis/" in page.url

    # The home page: a fourth computer game is refused; the message is in place, next to
    # the button pressed, and the visitor's choices are as they were.
    page.goto(f"{daphne_server}/")
    page.locator(f"input[name=ruleset][value={ruleset}]").check()
    page.select_option("#level", "6")
    page.locator("input[name=color][value=black]").check(force=True)
    page.select_option("#time-control", "untimed")
    made = page.evaluate("""async () => {
      const form = document.getElementById('play-form'); const codes = [];
      for (let i = 0; i < 3; i++) {
        const r = await fetch(form.querySelector('[data-action=computer]').formAction, {
          method: 'POST', body: new FormData(form), headers: {Accept: 'application/json',
          'X-CSRFToken': form.querySelector('[name=csrfmiddlewaretoken]').value}});
        codes.push(r.status);
      }
      return codes; }""")
    assert made == [201, 201, 201]
    page.click("button[data-action=computer]")
    error = page.locator(".action-card:has([data-action=computer]) .action-error")
    error.wait_for(state="visible")
    page.wait_for_function("document.querySelector('.action-error').textContent.length > 0")
    assert error.inner_text() == refused
    assert page.url.rstrip("/") == daphne_server.rstrip("/")
    kept = page.evaluate("""() => ({
      ruleset: document.querySelector('input[name=ruleset]:checked').value,
      level: document.getElementById('level').value,
      color: document.querySelector('input[name=color]:checked').value,
      time: document.getElementById('time-control').value})""")
    assert kept == {"ruleset": ruleset, "level": "6", "color": "black", "time": "untimed"}
    box = error.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(artifacts_dir / f"phone-errors-home-{lang}.png"))
    for text in (bad_fen, bad_pdn, impossible, refused):
        assert not any(word in text for word in ENGLISH_WORDS), text
