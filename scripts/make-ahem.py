#!/usr/bin/env python3
"""Makes the Ahem test font that the CSS reftests are written for, from its published metrics.

    python3 scripts/make-ahem.py [OUTPUT.ttf]     (default .build-bench/css-reftests/fonts/Ahem.ttf)

Debian does not package Ahem, and the project makes its own fixtures, so the font is built here
with fontTools (Debian's python3-fonttools: `bash scripts/install-deps.sh --conformance`) from
the description in the Ahem README (the W3C CSS test fonts page): 1000 units per em, ascent 800,
descent 200, so the em square is exactly the line box of `line-height: 1`. Most characters are a
box filling that square with a full advance; the exceptions are listed in SPECIAL below. The
output is byte-identical from run to run (fixed dates, sorted tables) and is never committed:
scripts/wpt-reftests.py builds it into its cache and points fontconfig at it.
"""
import os
import sys


def _reexec_with_system_python(module):
    """fontTools comes from Debian: run under /usr/bin/python3 when another python3 is first."""
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
        os.execv(system, [system, *sys.argv])
    sys.exit(f"make-ahem: {module} is missing; run `bash scripts/install-deps.sh --conformance` "
             "(Debian's python3-fonttools) or `pip install fonttools`")


try:
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen
except ImportError:
    _reexec_with_system_python("fontTools")

EM, ASCENT, DESCENT = 1000, 800, 200

# Code points drawn as the full em box with a full advance (the README's list).
FULL_BOX = [
    (0x20, 0x26), (0x28, 0x6F), (0x71, 0x7E), (0xA0, 0xC8), (0xCA, 0xFF), (0x131, 0x131),
    (0x152, 0x153), (0x178, 0x178), (0x192, 0x192), (0x2C6, 0x2C7), (0x2C9, 0x2C9),
    (0x2D8, 0x2DD), (0x394, 0x394), (0x3A5, 0x3A5), (0x3A7, 0x3A7), (0x3A9, 0x3A9),
    (0x3BC, 0x3BC), (0x3C0, 0x3C0), (0x2013, 0x2014), (0x2018, 0x201A), (0x201C, 0x201E),
    (0x2020, 0x2022), (0x2026, 0x2026), (0x2030, 0x2030), (0x2039, 0x203A), (0x2044, 0x2044),
    (0x2122, 0x2122), (0x2126, 0x2126), (0x2202, 0x2202), (0x2206, 0x2206), (0x220F, 0x220F),
    (0x2211, 0x2212), (0x2219, 0x221A), (0x221E, 0x221E), (0x222B, 0x222B), (0x2248, 0x2248),
    (0x2260, 0x2260), (0x2264, 0x2265), (0x22F2, 0x22F2), (0x25CA, 0x25CA), (0x3007, 0x3007),
    (0x4E00, 0x4E00), (0x4E03, 0x4E03), (0x4E09, 0x4E09), (0x4E5D, 0x4E5D), (0x4E8C, 0x4E8C),
    (0x4E94, 0x4E94), (0x516B, 0x516B), (0x516D, 0x516D), (0x5341, 0x5341), (0x56D7, 0x56D7),
    (0x56DB, 0x56DB), (0x571F, 0x571F), (0x6728, 0x6728), (0x6C34, 0x6C34), (0x706B, 0x706B),
    (0x91D1, 0x91D1), (0xF000, 0xF002),
]

# Glyph shapes as (advance, rectangles in font units, y up from the baseline).
BOX = [(0, -DESCENT, EM, ASCENT)]
STRIPE_V = [(EM // 2 - 50, -DESCENT, EM // 2 + 50, ASCENT)]   # a thin vertical stripe, centred
STRIPE_H = [(0, (ASCENT - DESCENT) // 2 - 50, EM, (ASCENT - DESCENT) // 2 + 50)]  # thin horizontal
SHAPES = {
    "box": (EM, BOX),
    "ascent": (EM, [(0, 0, EM, ASCENT)]),        # É: full ascent, no descent
    "descent": (EM, [(0, -DESCENT, EM, 0)]),     # p: full descent, no ascent
    "stripe_v": (EM, STRIPE_V),
    "stripe_h": (EM, STRIPE_H),
    "space": (EM, []),
    "space_half": (EM // 2, []),
    "space_third": (333, []),
    "space_quarter": (EM // 4, []),
    "space_sixth": (167, []),
    "space_fifth": (EM // 5, []),
    "space_tenth": (EM // 10, []),
    "zero": (0, []),
}

# Code points mapped to something other than the box (the README's second list).
SPECIAL = {
    0x20: "space", 0xA0: "space", 0x2003: "space", 0x3000: "space",
    0x70: "descent", 0xC9: "ascent",
    0xFEFF: "zero", 0x200B: "zero", 0x200C: "zero", 0x200D: "zero",
    0x2002: "space_half", 0x2004: "space_third", 0x2005: "space_quarter", 0x2006: "space_sixth",
    0x2009: "space_fifth", 0x200A: "space_tenth",
    0x3A5: "stripe_v", 0x7E26: "stripe_v", 0x7E31: "stripe_v", 0x7EB5: "stripe_v",
    0x3A7: "stripe_h", 0x6A2A: "stripe_h", 0x6A6B: "stripe_h",
}

# 2015-01-01, a fixed date so that the same script writes the same bytes.
FIXED_DATE = 3_502_828_800


def code_points():
    mapping = {}
    for first, last in FULL_BOX:
        for code in range(first, last + 1):
            mapping[code] = "box"
    mapping.update(SPECIAL)
    return dict(sorted(mapping.items()))


def glyph(rectangles):
    pen = TTGlyphPen(None)
    for x0, y0, x1, y1 in rectangles:
        # Clockwise, as TrueType outlines are.
        pen.moveTo((x0, y0))
        pen.lineTo((x0, y1))
        pen.lineTo((x1, y1))
        pen.lineTo((x1, y0))
        pen.closePath()
    return pen.glyph()


def build(path):
    mapping = code_points()
    order = [".notdef", *sorted(SHAPES)]
    builder = FontBuilder(EM, isTTF=True)
    builder.setupGlyphOrder(order)
    builder.setupCharacterMap({code: shape for code, shape in mapping.items()})
    glyphs = {".notdef": glyph(BOX)}
    metrics = {".notdef": (EM, 0)}
    for name, (advance, rectangles) in SHAPES.items():
        glyphs[name] = glyph(rectangles)
        metrics[name] = (advance, min((r[0] for r in rectangles), default=0))
    builder.setupGlyf(glyphs)
    builder.setupHorizontalMetrics(metrics)
    builder.setupHorizontalHeader(ascent=ASCENT, descent=-DESCENT, lineGap=0)
    builder.setupNameTable({
        "familyName": "Ahem",
        "styleName": "Regular",
        "uniqueFontIdentifier": "Galley:Ahem:made-by-scripts/make-ahem.py",
        "fullName": "Ahem",
        "psName": "Ahem",
        "version": "Version 1.0",
        "copyright": "Made by Galley's scripts/make-ahem.py from the published Ahem metrics (public domain design)",
    })
    builder.setupOS2(
        version=4, sTypoAscender=ASCENT, sTypoDescender=-DESCENT, sTypoLineGap=0,
        usWinAscent=ASCENT, usWinDescent=DESCENT, sxHeight=ASCENT, sCapHeight=ASCENT,
        fsSelection=0x40 | 0x80,  # REGULAR, USE_TYPO_METRICS
        achVendID="NONE", usWeightClass=400, usWidthClass=5,
        ulUnicodeRange1=0b1, ulCodePageRange1=0b1,
    )
    builder.setupPost(isFixedPitch=0, underlinePosition=-DESCENT // 2, underlineThickness=DESCENT // 4)
    builder.setupHead(unitsPerEm=EM, created=FIXED_DATE, modified=FIXED_DATE, fontRevision=1.0)
    font = builder.font
    font.recalcTimestamp = False
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temporary = f"{path}.tmp{os.getpid()}"
    font.save(temporary, reorderTables=True)
    os.replace(temporary, path)
    return len(mapping)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build-bench", "css-reftests", "fonts", "Ahem.ttf")
    count = build(path)
    print(f"make-ahem: {path} ({count} characters, em {EM}, ascent {ASCENT}, descent {DESCENT})")


if __name__ == "__main__":
    main()
