"""The built-in rulesets' rules pages in Polish (pionek, damka, bicie większościowe)."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Koniec partii", [
        "Wygrywasz, gdy przeciwnikowi nie zostanie na planszy żadna bierka albo gdy jest "
        "jego ruch, a nie ma żadnego dozwolonego posunięcia. Wygrywasz też, gdy przeciwnik "
        "się podda lub skończy mu się czas.",
        "Partia kończy się remisem za zgodą obu stron (przyjęta propozycja remisu), "
        "automatycznie, gdy ta sama pozycja (przy ruchu tej samej strony) powtórzy się po "
        "raz trzeci, oraz automatycznie, gdy każda ze stron wykona 50 posunięć z rzędu bez "
        "bicia i bez ruchu pionka do przodu.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
        "title": "Warcaby międzynarodowe (stupolowe)",
        "summary": "Plansza 10x10, po 20 pionków, damki dalekobieżne, obowiązuje bicie "
                   "większościowe.",
        "sections": [
            ("Plansza i ustawienie początkowe", [
                "Plansza ma 10x10 pól; gra się na 50 ciemnych polach, ponumerowanych od 1 "
                "do 50 od strony czarnych. Każdy gracz ma ciemne pole w swoim lewym dolnym "
                "rogu.",
                "Białe mają 20 pionków na polach 31-50, czarne 20 pionków na polach 1-20. "
                "Zaczynają białe.",
            ]),
            ("Pionki", [
                "Pionek porusza się o jedno pole po przekątnej do przodu. Bije, "
                "przeskakując sąsiednią bierkę przeciwnika na wolne pole tuż za nią, do "
                "przodu lub do tyłu.",
            ]),
            ("Damki", [
                "Pionek, który kończy ruch na ostatnim rzędzie, zamienia się w damkę. "
                "Pionek, który podczas bicia tylko przechodzi przez ostatni rząd, pozostaje "
                "pionkiem i musi bić dalej.",
                "Damki są dalekobieżne: poruszają się o dowolną liczbę wolnych pól po "
                "przekątnej i biją z odległości, stając na dowolnym wolnym polu za zbitą "
                "bierką (na takim, z którego bicie może być kontynuowane, jeśli jest to "
                "możliwe).",
            ]),
            ("Bicie", [
                "Bicie jest obowiązkowe i obowiązuje bicie większościowe: trzeba zbić jak "
                "najwięcej bierek (pionki i damki liczą się tak samo). Spośród równie "
                "długich bić wybiera się dowolnie.",
                "Zbite bierki zdejmuje się z planszy dopiero po zakończeniu całego ruchu; "
                "tej samej bierki nie można przeskoczyć dwa razy.",
            ]),
        ],
    },
    "english": {
        "title": "Warcaby angielskie (checkers)",
        "summary": "Plansza 8x8, po 12 pionków, damki ruszają się o jedno pole, zaczynają "
                   "czarne, można wybrać dowolne bicie.",
        "sections": [
            ("Plansza i ustawienie początkowe", [
                "Plansza ma 8x8 pól; gra się na 32 ciemnych polach, ponumerowanych od 1 do "
                "32, z czarnymi u góry. Każdy gracz ma ciemne pole w swoim lewym dolnym "
                "rogu.",
                "Czarne (ciemne bierki) mają 12 pionków na polach 1-12, białe 12 pionków na "
                "polach 21-32. Zaczynają czarne.",
            ]),
            ("Pionki", [
                "Pionek porusza się o jedno pole po przekątnej do przodu i bije tylko do "
                "przodu, przeskakując sąsiednią bierkę przeciwnika na wolne pole za nią.",
            ]),
            ("Damki", [
                "Pionek, który dojdzie do ostatniego rzędu, zamienia się w damkę, a jeśli "
                "dotarł tam w biciu, jego ruch na tym się kończy.",
                "Damka porusza się o jedno pole po przekątnej, do przodu lub do tyłu, i bije "
                "krótkim skokiem we wszystkich czterech kierunkach.",
            ]),
            ("Bicie", [
                "Bicie jest obowiązkowe, ale można wybrać dowolne bicie, niekoniecznie "
                "najdłuższe (nie ma bicia większościowego). Rozpoczęte bicie trzeba "
                "dokończyć.",
                "Zbite bierki schodzą z planszy po zakończeniu ruchu; tej samej bierki nie "
                "można przeskoczyć dwa razy.",
            ]),
        ],
    },
    "brazilian": {
        "title": "Warcaby brazylijskie",
        "summary": "Zasady międzynarodowe na planszy 8x8: damki dalekobieżne, pionki biją "
                   "do tyłu, obowiązuje bicie większościowe.",
        "sections": [
            ("Plansza i ustawienie początkowe", [
                "Plansza ma 8x8 pól; gra się na 32 ciemnych polach, a każdy gracz ma ciemne "
                "pole (a1) w swoim lewym dolnym rogu. Pola nazywa się jak w szachach "
                "(c3-d4); numery pól też są akceptowane.",
                "Białe mają 12 pionków w pierwszych trzech rzędach (od a1 do h3), czarne 12 "
                "pionków w trzech ostatnich (od b6 do h8). Zaczynają białe.",
            ]),
            ("Pionki", [
                "Pionek porusza się o jedno pole po przekątnej do przodu i bije do przodu "
                "lub do tyłu, przeskakując sąsiednią bierkę przeciwnika.",
            ]),
            ("Damki", [
                "Pionek, który kończy ruch na ostatnim rzędzie, zamienia się w damkę; samo "
                "przejście przez ten rząd podczas bicia nie wystarcza.",
                "Damki są dalekobieżne: poruszają się o dowolną liczbę pól po przekątnej i "
                "biją z odległości, stając na dowolnym wolnym polu za zbitą bierką.",
            ]),
            ("Bicie", [
                "Bicie jest obowiązkowe i obowiązuje bicie większościowe: trzeba wykonać "
                "bicie, które zdobywa najwięcej bierek (pionki i damki liczą się tak samo); "
                "spośród równych wybierasz dowolnie.",
                "Zbite bierki zdejmuje się po zakończeniu ruchu; tej samej bierki nie można "
                "przeskoczyć dwa razy.",
            ]),
        ],
    },
    "spanish": {
        "title": "Warcaby hiszpańskie",
        "summary": "Plansza 8x8, gra na jasnych polach, damki dalekobieżne, pionki biją "
                   "tylko do przodu; najpierw najwięcej bierek, potem najwięcej damek.",
        "sections": [
            ("Plansza i ustawienie początkowe", [
                "Plansza ma 8x8 pól; gra się na 32 jasnych polach, więc każdy gracz ma pole "
                "gry w swoim PRAWYM dolnym rogu (pole a1 nie jest używane). Pola są "
                "numerowane od 1 (h1, prawy dolny róg białych) do 32 (a8).",
                "Białe mają 12 pionków na polach 1-12, czarne 12 pionków na polach 21-32. "
                "Zaczynają białe.",
            ]),
            ("Pionki", [
                "Pionek porusza się o jedno pole po przekątnej do przodu i bije tylko do "
                "przodu.",
            ]),
            ("Damki", [
                "Pionek, który dojdzie do ostatniego rzędu, zamienia się w damkę i jego ruch "
                "na tym się kończy.",
                "Damki są dalekobieżne: poruszają się o dowolną liczbę pól po przekątnej, "
                "biją z odległości i stają na dowolnym wolnym polu za zbitą bierką.",
            ]),
            ("Bicie", [
                "Bicie jest obowiązkowe. Trzeba zbić jak najwięcej bierek; spośród bić "
                "zdobywających tyle samo bierek – to, które zbija najwięcej damek. Poza tym "
                "wybór jest dowolny (bicie damką nie ma pierwszeństwa przed biciem "
                "pionkiem).",
                "Zbite bierki zdejmuje się po zakończeniu ruchu; tej samej bierki nie można "
                "przeskoczyć dwa razy.",
            ]),
        ],
    },
    "turkish": {
        "title": "Warcaby tureckie (Dama)",
        "summary": "Plansza 8x8, wszystkie 64 pola, bierki poruszają się po prostej (nigdy "
                   "po przekątnej), zbite bierki znikają od razu, obowiązuje bicie "
                   "większościowe.",
        "sections": [
            ("Plansza i ustawienie początkowe", [
                "Używa się wszystkich 64 pól i nic nie porusza się po przekątnej. Pola "
                "nazywa się jak w szachach; a1 to lewy dolny róg białych.",
                "Białe mają 16 pionków w rzędach 2 i 3, czarne 16 pionków w rzędach 6 i 7; "
                "rzędy 1 i 8 są na początku puste. Zaczynają białe.",
            ]),
            ("Pionki", [
                "Pionek porusza się o jedno pole do przodu lub w bok, nigdy do tyłu, i bije "
                "do przodu lub w bok, przeskakując sąsiednią bierkę przeciwnika.",
            ]),
            ("Damki", [
                "Pionek, który kończy ruch na ostatnim rzędzie, zamienia się w damkę. Jeśli "
                "dojdzie do ostatniego rzędu w trakcie bicia, bije dalej jako pionek (w bok, "
                "wzdłuż tego rzędu) i zostaje damką, gdy ruch się tam zakończy.",
                "Damki poruszają się o dowolną liczbę pól wzdłuż rzędów i kolumn, we "
                "wszystkich czterech kierunkach, i biją z odległości, stając na dowolnym "
                "wolnym polu za zbitą bierką.",
            ]),
            ("Bicie", [
                "Bicie jest obowiązkowe i trzeba zbić jak najwięcej bierek (pionki i damki "
                "liczą się tak samo).",
                "Każda zbita bierka od razu znika z planszy, więc jej pole jest wolne do "
                "końca ruchu. Między dwoma biciami bierka może iść dalej prosto lub skręcić "
                "o 90 stopni, ale nigdy nie może zawrócić.",
                "Samotna damka przeciwko samotnemu pionkowi wygrywa od razu.",
            ]),
        ],
    },
}
