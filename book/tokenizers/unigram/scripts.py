"""The Unicode script of a character (Latin, Cyrillic, Han, ...), for SentencePiece's training rule.

SentencePiece's trainer never proposes a piece that mixes scripts: ``king`` and ``,`` can be
pieces, ``king,`` cannot, because letters are Latin and punctuation, digits and emoji are
"Common". Python's ``unicodedata`` has no script property; the ``regex`` module does
(``\\p{Script=Latin}``), so we ask it, once per character.

>>> script("a"), script("я"), script(","), script("7"), script("é")
('Latin', 'Cyrillic', 'Common', 'Common', 'Latin')
"""

from __future__ import annotations

import functools

import regex

# Unicode 14's scripts (long names); the most common first, since they are tried in order.
SCRIPTS = """
Common Latin Inherited Greek Cyrillic Armenian Hebrew Arabic Devanagari Bengali Tamil Thai
Georgian Ethiopic Han Hiragana Katakana Hangul Telugu Kannada Malayalam Gujarati Gurmukhi
Oriya Sinhala Khmer Lao Myanmar Tibetan Mongolian Syriac Thaana Nko Canadian_Aboriginal
Cherokee Adlam Ahom Anatolian_Hieroglyphs Avestan Balinese Bamum Bassa_Vah Batak Bhaiksuki
Bopomofo Brahmi Braille Buginese Buhid Carian Caucasian_Albanian Chakma Cham Chorasmian Coptic
Cuneiform Cypriot Cypro_Minoan Deseret Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs
Elbasan Elymaic Glagolitic Gothic Grantha Gunjala_Gondi Hanifi_Rohingya Hanunoo Hatran
Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kayah_Li
Kharoshthi Khitan_Small_Script Khojki Khudawadi Lepcha Limbu Linear_A Linear_B Lisu Lycian
Lydian Mahajani Makasar Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek
Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mro Multani Nabataean
Nandinagari New_Tai_Lue Newa Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian
Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic
Old_Uyghur Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician
Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting
Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet
Takri Tangsa Tangut Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi
Zanabazar_Square
""".split()


def _known(name: str) -> bool:
    """Whether the installed ``regex`` module knows the script ``name``."""
    try:
        regex.compile(rf"\p{{Script={name}}}")
    except regex.error:
        return False
    return True


_SCRIPT_OF = regex.compile(
    "|".join(rf"(?P<{name}>\p{{Script={name}}})" for name in SCRIPTS if _known(name))
)


@functools.cache
def script(ch: str) -> str:
    """The script of one character: a name from ``SCRIPTS``, or "Unknown" (unassigned)."""
    match = _SCRIPT_OF.match(ch)
    return match.lastgroup if match else "Unknown"
