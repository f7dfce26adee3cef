"""The built-in rulesets' rules pages in Turkish (taş, dama, alma zorunludur)."""

from __future__ import annotations

from variants.base import RulesPage

# The section every ruleset's page ends with.
COMMON: list[tuple[str, list[str]]] = [
    ("Oyunun sonu", [
        "Rakibinizin tahtada hiç taşı ve daması kalmadığında ya da sıra ondayken "
        "oynayabileceği kurallara uygun hiçbir hamlesi olmadığında kazanırsınız. Rakibiniz "
        "oyunu terk ederse ya da süresi biterse de kazanırsınız.",
        "Oyun berabere biter: anlaşmayla (beraberlik teklifi kabul edilince); aynı konum "
        "(sıra aynı taraftayken) üçüncü kez oluştuğunda kendiliğinden; ve iki taraf da üst "
        "üste 50'şer hamle boyunca hiç taş almaz ve hiçbir taşını ileri sürmezse "
        "kendiliğinden.",
    ]),
]

PAGES: dict[str, RulesPage] = {
    "international": {
        "title": "Uluslararası dama",
        "summary": "10x10 tahta, her oyuncuya 20 taş, damalar uzağa gider, en çok taş alan "
                   "hamle zorunludur.",
        "sections": [
            ("Tahta ve başlangıç", [
                "Tahta 10x10 karedir; yalnızca 50 koyu karede oynanır. Kareler Siyah'ın "
                "tarafından başlayarak 1'den 50'ye numaralanır. Her oyuncunun kendine yakın "
                "sol köşesinde bir koyu kare bulunur.",
                "Beyaz'ın 31-50 numaralı karelerde 20 taşı, Siyah'ın 1-20 numaralı "
                "karelerde 20 taşı vardır. İlk hamleyi Beyaz yapar.",
            ]),
            ("Taşlar", [
                "Taş çapraz olarak bir kare ileri gider. Bitişiğindeki rakip taşın üzerinden "
                "atlayıp hemen arkasındaki boş kareye konarak alır; ileriye de geriye de "
                "alabilir.",
            ]),
            ("Damalar", [
                "Hamlesini son sırada bitiren taş dama olur. Bir alış sırasında son sıradan "
                "yalnızca geçen taş, taş olarak kalır ve almaya devam etmek zorundadır.",
                "Damalar uzağa gider: bir çapraz boyunca boş karelerin üzerinden istediği "
                "kadar ilerler, uzaktaki bir taşı da alır ve onun ötesindeki herhangi bir boş "
                "kareye konar (alış devam edebiliyorsa, devam edebileceği bir kareye).",
            ]),
            ("Taş alma", [
                "Alma zorunludur ve en çok taş alan hamle oynanmalıdır (taşlar ve damalar "
                "aynı sayılır). Eşit sayıda taş alan hamleler arasında seçim serbesttir.",
                "Alınan taşlar ancak hamlenin tamamı bitince tahtadan kaldırılır; bir taşın "
                "üzerinden iki kez atlanamaz.",
            ]),
        ],
    },
    "english": {
        "title": "İngiliz daması (checkers)",
        "summary": "8x8 tahta, her oyuncuya 12 taş, damalar tek kare gider, ilk hamleyi "
                   "Siyah yapar, istenen alış seçilebilir.",
        "sections": [
            ("Tahta ve başlangıç", [
                "Tahta 8x8 karedir; 32 koyu karede oynanır, kareler Siyah yukarıdayken "
                "1'den 32'ye numaralanır. Her oyuncunun kendine yakın sol köşesinde bir "
                "koyu kare bulunur.",
                "Siyah'ın (koyu taşlar) 1-12 numaralı karelerde 12 taşı, Beyaz'ın 21-32 "
                "numaralı karelerde 12 taşı vardır. İlk hamleyi Siyah yapar.",
            ]),
            ("Taşlar", [
                "Taş çapraz olarak bir kare ileri gider ve yalnızca ileriye alır: "
                "bitişiğindeki rakip taşın üzerinden arkasındaki boş kareye atlar.",
            ]),
            ("Damalar", [
                "Son sıraya ulaşan taş dama olur; oraya taş alarak vardıysa hamlesi orada "
                "biter.",
                "Dama çapraz olarak bir kare, ileri ya da geri gider ve dört yöne de kısa "
                "atlayarak alır.",
            ]),
            ("Taş alma", [
                "Alma zorunludur, ama en uzunu olmasa da istediğiniz alışı seçebilirsiniz. "
                "Başlanan bir alış sonuna kadar tamamlanmalıdır.",
                "Alınan taşlar hamle bitince tahtadan kalkar; bir taşın üzerinden iki kez "
                "atlanamaz.",
            ]),
        ],
    },
    "brazilian": {
        "title": "Brezilya daması",
        "summary": "8x8 tahtada uluslararası kurallar: damalar uzağa gider, taşlar geriye "
                   "de alır, en çok taş alan hamle zorunludur.",
        "sections": [
            ("Tahta ve başlangıç", [
                "Tahta 8x8 karedir; 32 koyu karede oynanır ve her oyuncunun kendine yakın "
                "sol köşesinde bir koyu kare (a1) bulunur. Kareler satrançtaki gibi "
                "adlandırılır (c3-d4); numaralar da kabul edilir.",
                "Beyaz'ın ilk üç sırada (a1'den h3'e) 12 taşı, Siyah'ın son üç sırada "
                "(b6'dan h8'e) 12 taşı vardır. İlk hamleyi Beyaz yapar.",
            ]),
            ("Taşlar", [
                "Taş çapraz olarak bir kare ileri gider; bitişiğindeki rakip taşın "
                "üzerinden atlayarak ileriye ya da geriye alır.",
            ]),
            ("Damalar", [
                "Hamlesini son sırada bitiren taş dama olur; bir alış sırasında oradan "
                "geçmek yetmez.",
                "Damalar uzağa gider: bir çapraz boyunca istediği kadar ilerler, uzaktan "
                "alır ve alınan taşın ötesindeki herhangi bir boş kareye konar.",
            ]),
            ("Taş alma", [
                "Alma zorunludur ve en çok taş alan hamle oynanmalıdır (taşlar ve damalar "
                "aynı sayılır); eşit olanlar arasında seçim sizindir.",
                "Alınan taşlar hamlenin sonunda kaldırılır; bir taşın üzerinden iki kez "
                "atlanamaz.",
            ]),
        ],
    },
    "spanish": {
        "title": "İspanyol daması",
        "summary": "Açık karelerde oynanan 8x8 tahta, damalar uzağa gider, taşlar yalnızca "
                   "ileriye alır; en çok taş alan, sonra en çok dama alan hamle zorunludur.",
        "sections": [
            ("Tahta ve başlangıç", [
                "Tahta 8x8 karedir; 32 açık karede oynanır, bu yüzden her oyuncunun kendine "
                "yakın SAĞ köşesinde bir oyun karesi bulunur (a1 kullanılmaz). Kareler 1'den "
                "(h1, Beyaz'ın kendine yakın sağ köşesi) 32'ye (a8) kadar numaralanır.",
                "Beyaz'ın 1-12 numaralı karelerde 12 taşı, Siyah'ın 21-32 numaralı "
                "karelerde 12 taşı vardır. İlk hamleyi Beyaz yapar.",
            ]),
            ("Taşlar", [
                "Taş çapraz olarak bir kare ileri gider ve yalnızca ileriye alır.",
            ]),
            ("Damalar", [
                "Son sıraya ulaşan taş dama olur ve hamlesi orada biter.",
                "Damalar uzağa gider: bir çapraz boyunca istediği kadar ilerler, uzaktan "
                "alır ve alınan taşın ötesindeki herhangi bir boş kareye konar.",
            ]),
            ("Taş alma", [
                "Alma zorunludur. En çok taş alan hamle oynanmalıdır; aynı sayıda taş "
                "alanlar arasında en çok dama alan. Bunun dışında seçim serbesttir (alış "
                "yapan bir damanın taşa göre önceliği yoktur).",
                "Alınan taşlar hamlenin sonunda kaldırılır; bir taşın üzerinden iki kez "
                "atlanamaz.",
            ]),
        ],
    },
    "turkish": {
        "title": "Türk daması",
        "summary": "8x8 tahta, 64 karenin hepsi, taşlar düz gider (asla çapraz değil), alınan "
                   "taş hemen kalkar, en çok taş alan hamle zorunludur.",
        "sections": [
            ("Tahta ve başlangıç", [
                "64 karenin hepsi kullanılır ve hiçbir taş çapraz gitmez. Kareler "
                "satrançtaki gibi adlandırılır; a1, Beyaz'ın kendine yakın sol köşesidir.",
                "Beyaz'ın 2. ve 3. sıralarda 16 taşı, Siyah'ın 6. ve 7. sıralarda 16 taşı "
                "vardır; 1. ve 8. sıralar başta boştur. İlk hamleyi Beyaz yapar.",
            ]),
            ("Taşlar", [
                "Taş bir kare ileri ya da yana gider, asla geri gitmez; bitişiğindeki rakip "
                "taşın üzerinden atlayarak ileriye ya da yana alır.",
            ]),
            ("Damalar", [
                "Hamlesini son sırada bitiren taş dama olur. Son sıraya bir alış sırasında "
                "varırsa taş olarak almaya devam eder (o sıra boyunca yana) ve hamle orada "
                "biterse dama olur.",
                "Damalar sıralar ve sütunlar boyunca dört yöne de istediği kadar gider, "
                "uzaktan alır ve alınan taşın ötesindeki herhangi bir boş kareye konar.",
            ]),
            ("Taş alma", [
                "Alma zorunludur ve en çok taş alan (yiyen) hamle oynanmalıdır (taşlar ve "
                "damalar aynı sayılır).",
                "Alınan her taş hemen tahtadan kalkar, böylece karesi hamlenin geri kalanında "
                "boştur. İki alış arasında taş dümdüz devam edebilir ya da 90 derece "
                "dönebilir, ama asla geri dönemez.",
                "Tek damaya karşı tek taş kalırsa dama tarafı hemen kazanır.",
            ]),
        ],
    },
}
