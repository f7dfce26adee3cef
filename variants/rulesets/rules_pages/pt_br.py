"""The built-in rulesets' rules pages in Brazilian Portuguese (pedra, dama, lei da maioria)."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Fim da partida", [
        "Você vence quando o adversário fica sem peças, ou quando é a vez dele e ele não tem "
        "nenhum lance válido. Você também vence se o adversário abandonar a partida ou se o "
        "tempo dele acabar.",
        "A partida termina empatada por acordo (proposta de empate aceita), automaticamente "
        "quando a mesma posição (com o mesmo lado a jogar) se repete pela terceira vez, e "
        "automaticamente quando cada lado fez 50 lances seguidos sem nenhuma tomada e sem "
        "avançar nenhuma pedra.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
        "title": "Damas internacionais",
        "summary": "Tabuleiro 10x10, 20 pedras de cada lado, damas de longo alcance, tomada "
                   "obrigatória pela lei da maioria.",
        "sections": [
            ("Tabuleiro e posição inicial", [
                "O tabuleiro tem 10x10 casas; joga-se nas 50 casas escuras, numeradas de 1 "
                "a 50 a partir do lado das pretas. Cada jogador tem uma casa escura no canto "
                "mais próximo à sua esquerda.",
                "As brancas têm 20 pedras nas casas 31 a 50, as pretas 20 pedras nas casas "
                "1 a 20. As brancas começam.",
            ]),
            ("Pedras", [
                "A pedra anda uma casa na diagonal, para a frente. Ela toma saltando sobre "
                "uma peça adversária vizinha para a casa vazia logo atrás, para a frente ou "
                "para trás.",
            ]),
            ("Damas", [
                "A pedra que termina o lance na última fileira vira dama. A pedra que apenas "
                "passa pela última fileira durante uma tomada continua pedra e tem de "
                "continuar tomando.",
                "A dama é de longo alcance: anda quantas casas vazias quiser na diagonal e "
                "toma peças a distância, parando em qualquer casa vazia depois da peça "
                "tomada (naquela de onde a tomada pode continuar, se houver).",
            ]),
            ("Tomada", [
                "A tomada é obrigatória e vale a lei da maioria: é preciso tomar o maior "
                "número de peças (pedras e damas valem o mesmo). Entre tomadas do mesmo "
                "tamanho, a escolha é livre.",
                "As peças tomadas só saem do tabuleiro no fim do lance; uma peça não pode "
                "ser saltada duas vezes.",
            ]),
        ],
    },
    "english": {
        "title": "Damas inglesas (checkers)",
        "summary": "Tabuleiro 8x8, 12 pedras de cada lado, damas que andam uma casa, as "
                   "pretas começam, pode-se escolher qualquer tomada.",
        "sections": [
            ("Tabuleiro e posição inicial", [
                "O tabuleiro tem 8x8 casas; joga-se nas 32 casas escuras, numeradas de 1 a "
                "32 com as pretas em cima. Cada jogador tem uma casa escura no canto mais "
                "próximo à sua esquerda.",
                "As pretas (peças escuras) têm 12 pedras nas casas 1 a 12, as brancas 12 "
                "pedras nas casas 21 a 32. As pretas começam.",
            ]),
            ("Pedras", [
                "A pedra anda uma casa na diagonal, para a frente, e só toma para a frente, "
                "saltando uma peça adversária vizinha para a casa vazia logo atrás dela.",
            ]),
            ("Damas", [
                "A pedra que chega à última fileira vira dama e, se chegou lá tomando, o "
                "lance termina ali.",
                "A dama anda uma casa na diagonal, para a frente ou para trás, e toma com "
                "saltos curtos nas quatro direções.",
            ]),
            ("Tomada", [
                "A tomada é obrigatória, mas você pode escolher qualquer tomada, não "
                "necessariamente a maior (não vale a lei da maioria). Uma vez iniciada, a "
                "sequência de tomadas tem de ser completada.",
                "As peças tomadas saem do tabuleiro depois do lance; uma peça não pode ser "
                "saltada duas vezes.",
            ]),
        ],
    },
    "brazilian": {
        "title": "Damas brasileiras",
        "summary": "Regras internacionais no tabuleiro 8x8: damas de longo alcance, pedras "
                   "tomam para trás, tomada obrigatória pela lei da maioria.",
        "sections": [
            ("Tabuleiro e posição inicial", [
                "O tabuleiro tem 8x8 casas; joga-se nas 32 casas escuras, com uma casa "
                "escura (a1) no canto mais próximo à esquerda de cada jogador. As casas têm "
                "nomes como no xadrez (c3-d4); números também são aceitos.",
                "As brancas têm 12 pedras nas três primeiras fileiras (a1 a h3), as pretas "
                "12 pedras nas três últimas (b6 a h8). As brancas começam.",
            ]),
            ("Pedras", [
                "A pedra anda uma casa na diagonal, para a frente, e toma para a frente ou "
                "para trás, saltando uma peça adversária vizinha.",
            ]),
            ("Damas", [
                "A pedra que termina o lance na última fileira vira dama; passar por ela "
                "durante uma tomada não basta.",
                "A dama é de longo alcance: anda qualquer número de casas na diagonal e toma "
                "a distância, parando em qualquer casa vazia depois da peça tomada.",
            ]),
            ("Tomada", [
                "A tomada é obrigatória e vale a lei da maioria: deve-se jogar a tomada que "
                "captura mais peças (pedras e damas valem o mesmo); entre tomadas iguais, a "
                "escolha é sua.",
                "As peças tomadas são retiradas no fim do lance; uma peça não pode ser "
                "saltada duas vezes.",
            ]),
        ],
    },
    "spanish": {
        "title": "Damas espanholas",
        "summary": "Tabuleiro 8x8 jogado nas casas claras, damas de longo alcance, pedras só "
                   "tomam para a frente; a tomada maior, depois a que captura mais damas.",
        "sections": [
            ("Tabuleiro e posição inicial", [
                "O tabuleiro tem 8x8 casas; joga-se nas 32 casas claras, então cada jogador "
                "tem uma casa de jogo no canto mais próximo à sua DIREITA (a1 não é usada). "
                "As casas são numeradas de 1 (h1, o canto à direita das brancas) a 32 (a8).",
                "As brancas têm 12 pedras nas casas 1 a 12, as pretas 12 pedras nas casas "
                "21 a 32. As brancas começam.",
            ]),
            ("Pedras", [
                "A pedra anda uma casa na diagonal, para a frente, e só toma para a frente.",
            ]),
            ("Damas", [
                "A pedra que chega à última fileira vira dama e o lance termina ali.",
                "A dama é de longo alcance: anda qualquer número de casas na diagonal, toma "
                "a distância e para em qualquer casa vazia depois da peça tomada.",
            ]),
            ("Tomada", [
                "A tomada é obrigatória. É preciso tomar o maior número de peças; entre "
                "tomadas com o mesmo número, a que captura mais damas. Fora isso, a escolha "
                "é livre (tomar com a dama não tem prioridade sobre tomar com a pedra).",
                "As peças tomadas são retiradas no fim do lance; uma peça não pode ser "
                "saltada duas vezes.",
            ]),
        ],
    },
    "turkish": {
        "title": "Damas turcas (Dama)",
        "summary": "Tabuleiro 8x8, todas as 64 casas, as peças andam em linha reta (nunca na "
                   "diagonal), as peças tomadas saem na hora, tomada obrigatória pela lei da "
                   "maioria.",
        "sections": [
            ("Tabuleiro e posição inicial", [
                "Usam-se todas as 64 casas e nada anda na diagonal. As casas têm nomes como "
                "no xadrez; a1 é o canto mais próximo à esquerda das brancas.",
                "As brancas têm 16 pedras nas fileiras 2 e 3, as pretas 16 pedras nas "
                "fileiras 6 e 7; as fileiras 1 e 8 começam vazias. As brancas começam.",
            ]),
            ("Pedras", [
                "A pedra anda uma casa para a frente ou para o lado, nunca para trás, e toma "
                "para a frente ou para o lado, saltando uma peça adversária vizinha.",
            ]),
            ("Damas", [
                "A pedra que termina o lance na última fileira vira dama. Se chegar lá "
                "durante uma tomada, continua tomando como pedra (para o lado, ao longo "
                "dessa fileira) e é coroada se o lance terminar ali.",
                "A dama anda qualquer número de casas pelas fileiras e colunas, nas quatro "
                "direções, e toma a distância, parando em qualquer casa vazia depois da peça "
                "tomada.",
            ]),
            ("Tomada", [
                "A tomada é obrigatória e é preciso tomar o maior número de peças (pedras e "
                "damas valem o mesmo).",
                "Cada peça tomada sai do tabuleiro na hora, e sua casa fica livre para o "
                "resto do lance. Entre duas tomadas, a peça pode seguir em frente ou virar "
                "90 graus, mas nunca voltar pelo caminho por onde veio.",
                "Uma dama sozinha contra uma pedra sozinha vence na hora.",
            ]),
        ],
    },
}
