#!/usr/bin/env python3
"""Builds fixtures/fonts/no-glyphs/GalleyNoGlyphs.pfa: a font with no glyphs Galley can use.

    python3 scripts/make-type1-fixture.py

A Type 1 font (PFA) of three glyphs, named .notdef, uniF8FF and u10FFFD: FreeType reads it, so
fontconfig lists it as family "Galley No Glyphs" covering U+F8FF (private use) and U+10FFFD,
but HarfBuzz opens only OpenType and TrueType files and finds no glyphs in it. The URW Type 1
fonts some systems install (Standard Symbols PS claims U+F8FF) behave the same; tests point
`fonts:` at this folder so they do not depend on what a machine has installed. The output is
the same bytes on every run (the encryption's four leading bytes are zeros).
"""
import os
import sys

def num(v):
    if -107 <= v <= 107: return bytes([v + 139])
    if 108 <= v <= 1131: v -= 108; return bytes([v // 256 + 247, v % 256])
    if -1131 <= v <= -108: v = -v - 108; return bytes([v // 256 + 251, v % 256])
    return bytes([255]) + v.to_bytes(4, 'big', signed=True)

def charstring(*ops):
    out = b''
    for op in ops:
        out += num(op) if isinstance(op, int) else bytes([op[0]])
    return out

HSBW, RMOVETO, RLINETO, CLOSEPATH, ENDCHAR = (13,), (21,), (5,), (9,), (14,)

def encrypt(data, r, skip=4):
    out = bytearray()
    for p in bytes(skip) + data:
        c = p ^ (r >> 8)
        r = ((c + r) * 52845 + 22719) & 0xFFFF
        out.append(c)
    return bytes(out)

box = charstring(0, 600, HSBW, 50, 0, RMOVETO, 500, 0, RLINETO, 0, 700, RLINETO, -500, 0, RLINETO, CLOSEPATH, ENDCHAR)
notdef = charstring(0, 600, HSBW, ENDCHAR)
glyphs = [('.notdef', notdef), ('uniF8FF', box), ('u10FFFD', box)]

private = b'dup /Private 8 dict dup begin\n/RD{string currentfile exch readstring pop}executeonly def\n'
private += b'/ND{noaccess def}executeonly def\n/NP{noaccess put}executeonly def\n/MinFeature{16 16}def\n'
private += b'/password 5839 def\n/BlueValues [] def\n/Subrs 0 array\nND\n'
private += b'2 index /CharStrings %d dict dup begin\n' % len(glyphs)
for name, cs in glyphs:
    enc = encrypt(cs, 4330)
    private += b'/%s %d RD ' % (name.encode(), len(enc)) + enc + b' ND\n'
private += b'end\nend\nreadonly put\nnoaccess put\ndup/FontName get exch definefont pop\nmark currentfile closefile\n'
encrypted = encrypt(private, 55665).hex()

clear = """%!PS-AdobeFont-1.0: GalleyNoGlyphs 001.000
%%Title: GalleyNoGlyphs
% A Type 1 font fontconfig indexes (FreeType reads it) but HarfBuzz cannot open: a test
% fixture for fonts without usable glyphs. Made by scripts/make-type1-fixture.py.
12 dict begin
/FontInfo 3 dict dup begin
/FullName (Galley No Glyphs) readonly def
/FamilyName (Galley No Glyphs) readonly def
/Weight (Regular) readonly def
end readonly def
/FontName /GalleyNoGlyphs def
/PaintType 0 def
/FontType 1 def
/FontMatrix [0.001 0 0 0.001 0 0] readonly def
/FontBBox {0 0 600 700} readonly def
/Encoding StandardEncoding def
currentdict end
currentfile eexec
"""
lines = [encrypted[i:i + 64] for i in range(0, len(encrypted), 64)]
trailer = ('0' * 64 + '\n') * 8 + 'cleartomark\n'
path = os.path.join(os.path.dirname(__file__), "..", "fixtures", "fonts", "no-glyphs", "GalleyNoGlyphs.pfa")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w", newline="\n") as out:
    out.write(clear + '\n'.join(lines) + '\n' + trailer)
print(os.path.normpath(path), os.path.getsize(path))
