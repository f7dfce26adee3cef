"""The built-in rulesets' rules pages in Spanish (peón, dama, leyes de la cantidad y calidad)."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Final de la partida", [
        "Ganas cuando tu rival se queda sin piezas, o cuando le toca jugar y no tiene ninguna "
        "jugada legal. También ganas si tu rival abandona o se queda sin tiempo.",
        "La partida termina en tablas por acuerdo (oferta de tablas aceptada), "
        "automáticamente cuando la misma posición (con el mismo bando al turno) se repite "
        "por tercera vez, y automáticamente cuando cada bando ha hecho 50 jugadas seguidas "
        "sin ninguna captura y sin avanzar ningún peón.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
        "title": "Damas internacionales",
        "summary": "Tablero de 10x10, 20 peones por bando, damas de largo alcance, es "
                   "obligatoria la captura más larga.",
        "sections": [
            ("Tablero y posición inicial", [
                "El tablero tiene 10x10 casillas; se juega en las 50 casillas oscuras, "
                "numeradas del 1 al 50 desde el lado de las negras. Cada jugador tiene una "
                "casilla oscura en su esquina inferior izquierda.",
                "Las blancas tienen 20 peones en las casillas 31 a 50 y las negras 20 peones "
                "en las casillas 1 a 20. Salen las blancas.",
            ]),
            ("Peones", [
                "El peón avanza una casilla en diagonal. Captura saltando por encima de una "
                "pieza rival contigua hasta la casilla vacía inmediatamente detrás, hacia "
                "delante o hacia atrás.",
            ]),
            ("Damas", [
                "El peón que termina su jugada en la última fila corona y se convierte en "
                "dama. Un peón que solo pasa por la última fila durante una captura sigue "
                "siendo peón y debe seguir capturando.",
                "Las damas son de largo alcance: recorren tantas casillas vacías como "
                "quieran a lo largo de una diagonal y capturan a distancia, cayendo en "
                "cualquier casilla vacía detrás de la pieza capturada (en una desde la que "
                "la captura pueda seguir, si la hay).",
            ]),
            ("Capturas", [
                "La captura es obligatoria y hay que capturar el mayor número de piezas (ley "
                "de la cantidad; peones y damas valen lo mismo). Entre capturas igual de "
                "largas se elige libremente.",
                "Las piezas capturadas se retiran solo al terminar la jugada; una pieza no "
                "se puede saltar dos veces.",
            ]),
        ],
    },
    "english": {
        "title": "Damas inglesas (checkers)",
        "summary": "Tablero de 8x8, 12 peones por bando, damas de paso corto, salen las "
                   "negras, se puede elegir cualquier captura.",
        "sections": [
            ("Tablero y posición inicial", [
                "El tablero tiene 8x8 casillas; se juega en las 32 casillas oscuras, "
                "numeradas del 1 al 32 con las negras arriba. Cada jugador tiene una casilla "
                "oscura en su esquina inferior izquierda.",
                "Las negras (piezas oscuras) tienen 12 peones en las casillas 1 a 12 y las "
                "blancas 12 peones en las casillas 21 a 32. Salen las negras.",
            ]),
            ("Peones", [
                "El peón avanza una casilla en diagonal y solo captura hacia delante, "
                "saltando una pieza rival contigua hasta la casilla vacía de detrás.",
            ]),
            ("Damas", [
                "El peón que llega a la última fila corona y se convierte en dama; si llegó "
                "capturando, la jugada termina ahí.",
                "La dama se mueve una casilla en diagonal, hacia delante o hacia atrás, y "
                "captura con saltos cortos en las cuatro direcciones.",
            ]),
            ("Capturas", [
                "La captura es obligatoria, pero puedes elegir cualquier captura, no "
                "necesariamente la más larga. Una vez empezada, la serie de capturas debe "
                "completarse.",
                "Las piezas capturadas salen del tablero al terminar la jugada; una pieza no "
                "se puede saltar dos veces.",
            ]),
        ],
    },
    "brazilian": {
        "title": "Damas brasileñas",
        "summary": "Reglas internacionales en un tablero de 8x8: damas de largo alcance, los "
                   "peones capturan hacia atrás, es obligatoria la captura más larga.",
        "sections": [
            ("Tablero y posición inicial", [
                "El tablero tiene 8x8 casillas; se juega en las 32 casillas oscuras, con una "
                "casilla oscura (a1) en la esquina inferior izquierda de cada jugador. Las "
                "casillas se nombran como en el ajedrez (c3-d4); también se aceptan números.",
                "Las blancas tienen 12 peones en las tres primeras filas (a1 a h3) y las "
                "negras 12 peones en las tres últimas (b6 a h8). Salen las blancas.",
            ]),
            ("Peones", [
                "El peón avanza una casilla en diagonal y captura hacia delante o hacia "
                "atrás saltando una pieza rival contigua.",
            ]),
            ("Damas", [
                "El peón que termina su jugada en la última fila corona y se convierte en "
                "dama; no basta con pasar por ella durante una captura.",
                "Las damas son de largo alcance: cualquier distancia a lo largo de una "
                "diagonal, y capturan a distancia, cayendo en cualquier casilla vacía detrás "
                "de la pieza capturada.",
            ]),
            ("Capturas", [
                "La captura es obligatoria y hay que jugar la que captura más piezas (ley de "
                "la cantidad; peones y damas valen lo mismo); entre capturas iguales eliges "
                "tú.",
                "Las piezas capturadas se retiran al terminar la jugada; una pieza no se "
                "puede saltar dos veces.",
            ]),
        ],
    },
    "spanish": {
        "title": "Damas españolas",
        "summary": "Tablero de 8x8 jugado en las casillas claras, damas de largo alcance, los "
                   "peones solo capturan hacia delante; ley de la cantidad y después de la "
                   "calidad.",
        "sections": [
            ("Tablero y posición inicial", [
                "El tablero tiene 8x8 casillas; se juega en las 32 casillas claras, así que "
                "cada jugador tiene una casilla de juego en su esquina inferior DERECHA (a1 "
                "no se usa). Las casillas se numeran del 1 (h1, la esquina inferior derecha "
                "de las blancas) al 32 (a8).",
                "Las blancas tienen 12 peones en las casillas 1 a 12 y las negras 12 peones "
                "en las casillas 21 a 32. Salen las blancas.",
            ]),
            ("Peones", [
                "El peón avanza una casilla en diagonal y solo captura hacia delante.",
            ]),
            ("Damas", [
                "El peón que llega a la última fila corona y su jugada termina ahí.",
                "Las damas son de largo alcance: cualquier distancia a lo largo de una "
                "diagonal, capturando a distancia y cayendo en cualquier casilla vacía "
                "detrás de la pieza capturada.",
            ]),
            ("Capturas", [
                "La captura es obligatoria. Hay que capturar el mayor número de piezas (ley "
                "de la cantidad); entre capturas del mismo número de piezas, la que captura "
                "más damas (ley de la calidad). Por lo demás la elección es libre (capturar "
                "con dama no tiene preferencia sobre capturar con peón).",
                "Las piezas capturadas se retiran al terminar la jugada; una pieza no se "
                "puede saltar dos veces.",
            ]),
        ],
    },
    "turkish": {
        "title": "Damas turcas (Dama)",
        "summary": "Tablero de 8x8, las 64 casillas, las piezas se mueven en línea recta "
                   "(nunca en diagonal), las piezas capturadas salen al instante, es "
                   "obligatoria la captura más larga.",
        "sections": [
            ("Tablero y posición inicial", [
                "Se usan las 64 casillas y nada se mueve en diagonal. Las casillas se "
                "nombran como en el ajedrez; a1 es la esquina inferior izquierda de las "
                "blancas.",
                "Las blancas tienen 16 peones en las filas 2 y 3 y las negras 16 peones en "
                "las filas 6 y 7; las filas 1 y 8 empiezan vacías. Salen las blancas.",
            ]),
            ("Peones", [
                "El peón se mueve una casilla hacia delante o hacia un lado, nunca hacia "
                "atrás, y captura hacia delante o hacia un lado saltando una pieza rival "
                "contigua.",
            ]),
            ("Damas", [
                "El peón que termina su jugada en la última fila se convierte en dama. Si "
                "llega a ella durante una captura, sigue capturando como peón (hacia un "
                "lado, a lo largo de esa fila) y corona cuando la jugada termina ahí.",
                "Las damas recorren cualquier distancia por filas y columnas en las cuatro "
                "direcciones y capturan a distancia, cayendo en cualquier casilla vacía "
                "detrás de la pieza capturada.",
            ]),
            ("Capturas", [
                "La captura es obligatoria y hay que capturar el mayor número de piezas "
                "(peones y damas valen lo mismo).",
                "Cada pieza capturada sale del tablero al instante, así que su casilla queda "
                "libre para el resto de la jugada. Entre dos capturas una pieza puede seguir "
                "recto o girar 90 grados, pero nunca volver hacia atrás.",
                "Una dama sola contra un peón solo gana al instante.",
            ]),
        ],
    },
}
