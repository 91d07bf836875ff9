#!/usr/bin/env python3
"""Builds the PDF fixtures in fixtures/pdf with tools the install script provides.

mutool create writes the pages, mutool run sets boxes it cannot, qpdf encrypts, cjpeg
compresses the generated photo. Everything here is made by this script: no documents are
copied from elsewhere. Run it again after changing it; it overwrites the folder's files.
"""
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fixtures", "pdf")
BROKEN = os.path.join(ROOT, "fixtures", "broken")

WORDS = (
    "galley proof column measure leading kerning ligature baseline gutter folio "
    "margin signature imposition plate press ink paper quire spine serif sans "
    "typeface glyph hyphen justify ragged indent paragraph heading caption figure "
    "the of and to in a is that for on with as by at from page line word text"
).split()


def prose(rng, words):
    out = []
    for i in range(words):
        w = rng.choice(WORDS)
        if not out or out[-1].endswith("."):
            w = w.capitalize()
        out.append(w + ("." if rng.random() < 0.08 else ""))
    return out


def escape(text):
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_page(rng, width, height, title, margin=72, size=11, columns=1):
    lines = ["%%%%MediaBox 0 0 %d %d" % (width, height),
             "%%Font TR Times-Roman", "%%Font HB Helvetica-Bold",
             "BT /HB 20 Tf %d %d Td (%s) Tj ET" % (margin, height - margin, escape(title))]
    gap = 18
    col_width = (width - 2 * margin - gap * (columns - 1)) / columns
    chars_per_line = int(col_width / (size * 0.45))
    for c in range(columns):
        x = margin + c * (col_width + gap)
        y = height - margin - 36
        words = prose(rng, 2000)
        line = ""
        body = []
        while y > margin:
            w = words.pop()
            if len(line) + len(w) + 1 > chars_per_line:
                body.append("BT /TR %d Tf %.1f %.1f Td (%s) Tj ET" % (size, x, y, escape(line)))
                line = ""
                y -= size * 1.3
            line = (line + " " + w).strip()
        lines.extend(body)
    return "\n".join(lines) + "\n"


def vector_page():
    ops = ["%%MediaBox 0 0 595 842"]
    # Overlapping translucent-looking bands, curves, dashes and a CMYK fill.
    for i in range(12):
        r, g, b = (i * 0.08) % 1, (0.3 + i * 0.05) % 1, (0.9 - i * 0.07) % 1
        ops.append("%.2f %.2f %.2f rg %d %d %d %d re f" % (r, g, b, 40 + i * 40, 60 + i * 50, 120, 60))
    ops.append("0 0 0 1 k 60 700 200 80 re f")           # CMYK black
    ops.append("0.1 0.9 0.7 0 k 300 700 200 80 re f")    # CMYK magenta-ish
    ops.append("0.8 0.1 0.1 RG 4 w 1 J [12 6] 0 d 50 40 m 545 40 l S")
    ops.append("[] 0 d 0 0.4 0.8 RG 2 w")
    for i in range(8):
        cx, cy, rad = 297, 420, 40 + i * 22
        k = 0.5523 * rad
        ops.append("%.1f %.1f m %.1f %.1f %.1f %.1f %.1f %.1f c %.1f %.1f %.1f %.1f %.1f %.1f c "
                   "%.1f %.1f %.1f %.1f %.1f %.1f c %.1f %.1f %.1f %.1f %.1f %.1f c S" % (
                       cx + rad, cy, cx + rad, cy + k, cx + k, cy + rad, cx, cy + rad,
                       cx - k, cy + rad, cx - rad, cy + k, cx - rad, cy,
                       cx - rad, cy - k, cx - k, cy - rad, cx, cy - rad,
                       cx + k, cy - rad, cx + rad, cy - k, cx + rad, cy))
    ops.append("0 g 0.5 w")
    for i in range(60):
        a = i * math.pi / 30
        ops.append("297 420 m %.2f %.2f l S" % (297 + 250 * math.cos(a), 420 + 250 * math.sin(a)))
    return "\n".join(ops) + "\n"


def photo_ppm(path, width=640, height=420, seed=7):
    """A synthetic photograph: sky gradient, hills, sun, and sensor noise."""
    rng = random.Random(seed)
    rows = bytearray()
    for y in range(height):
        for x in range(width):
            t = y / height
            r, g, b = 90 + 120 * t, 140 + 80 * t, 230 - 40 * t
            hill = height * (0.55 + 0.12 * math.sin(x / 57.0) + 0.05 * math.sin(x / 13.0))
            if y > hill:
                shade = (y - hill) / height
                r, g, b = 40 + 60 * shade, 110 + 50 * math.sin(x / 9.0) * 0.3 + 40 * shade, 40
            d = math.hypot(x - width * 0.75, y - height * 0.22)
            if d < 45:
                r, g, b = 255, 230, 120
            n = rng.gauss(0, 6)
            rows += bytes(max(0, min(255, int(v + n))) for v in (r, g, b))
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (width, height))
        f.write(rows)


def run(*args):
    subprocess.run(args, check=True)


def create(path, pages, workdir):
    files = []
    for i, content in enumerate(pages):
        p = os.path.join(workdir, "%s-%d.txt" % (os.path.basename(path), i))
        with open(p, "w") as f:
            f.write(content)
        files.append(p)
    run("mutool", "create", "-O", "compress,garbage", "-o", path, *files)


def set_boxes(path, script_body, workdir):
    script = os.path.join(workdir, "boxes.js")
    with open(script, "w") as f:
        f.write("var doc = new PDFDocument(scriptArgs[0]);\n" + script_body +
                "\ndoc.save(scriptArgs[1], 'compress,garbage');\n")
    tmp = path + ".tmp"
    run("mutool", "run", script, path, tmp)
    os.replace(tmp, path)


def main():
    for tool in ("mutool", "qpdf", "cjpeg"):
        if shutil.which(tool) is None:
            sys.exit("make-fixtures: %s is missing; run scripts/install-deps.sh" % tool)
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(BROKEN, exist_ok=True)
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory() as work:
        out = lambda name: os.path.join(OUT, name)
        broken = lambda name: os.path.join(BROKEN, name)

        create(out("article.pdf"), [text_page(rng, 612, 792, "Galley article, page %d" % (i + 1),
                                              columns=1 + i % 2) for i in range(4)], work)
        create(out("vector-art.pdf"), [vector_page()], work)

        ppm = os.path.join(work, "photo.ppm")
        jpg = os.path.join(work, "photo.jpg")
        photo_ppm(ppm)
        run("cjpeg", "-quality", "85", "-outfile", jpg, ppm)
        create(out("photo.pdf"), ["%%MediaBox 0 0 595 842\n%%Image Im0 " + jpg +
                                  "\n%%Font HB Helvetica-Bold\n"
                                  "q 515 0 0 338 40 440 cm /Im0 Do Q\n"
                                  "BT /HB 14 Tf 40 410 Td (A generated photograph, JPEG, 640 x 420) Tj ET\n"], work)

        shared_image_pdf(out("shared-image.pdf"), jpg, work)

        rotated = text_page(rng, 612, 792, "This page carries /Rotate 90")
        create(out("rotated.pdf"), ["%%Rotate 90\n" + rotated], work)

        create(out("cropped.pdf"), [text_page(rng, 612, 792, "CropBox inside the MediaBox") +
                                    "1 0 0 RG 3 w 72 72 468 648 re S\n"], work)
        set_boxes(out("cropped.pdf"), "doc.findPage(0).put('CropBox', [72, 72, 540, 720]);", work)

        create(out("landscape.pdf"), [text_page(rng, 842, 595, "A landscape page", columns=3)], work)

        create(out("mixed.pdf"), [
            text_page(rng, 420, 595, "A5 portrait", margin=40, size=9),
            "%%Rotate 270\n" + text_page(rng, 612, 792, "Letter, /Rotate 270"),
            text_page(rng, 200, 200, "Tiny", margin=20, size=6),
            "%%Rotate 180\n" + text_page(rng, 595, 842, "A4 upside down"),
        ], work)
        set_boxes(out("mixed.pdf"), "doc.findPage(3).put('CropBox', [0.5, 10.25, 594.75, 830.6]);", work)

        run("qpdf", "--encrypt", "galley-secret", "galley-owner", "256", "--",
            out("article.pdf"), out("encrypted.pdf"))

        with open(out("article.pdf"), "rb") as f:
            article = f.read()
        # Cut inside the first objects: nothing MuPDF can rebuild a page from (fails as
        # truncated). Cut after the page tree: MuPDF rebuilds every page from what is there,
        # as mutool draw does, so the document is drawn with a warning.
        with open(broken("truncated.pdf"), "wb") as f:
            f.write(article[:400])
        with open(broken("cut-short.pdf"), "wb") as f:
            f.write(article[: len(article) // 3])
        garbage = random.Random(99)
        with open(broken("garbage.pdf"), "wb") as f:
            f.write(bytes(garbage.randrange(256) for _ in range(4096)))
        open(broken("empty.pdf"), "wb").close()
        with open(broken("no-pages.pdf"), "wb") as f:
            f.write(no_pages_pdf())
        with open(out("damaged-content.pdf"), "wb") as f:
            f.write(damaged_content_pdf())
    print("make-fixtures: wrote", ", ".join(sorted(os.listdir(OUT) + os.listdir(BROKEN))))


def shared_image_pdf(path, jpg, workdir):
    """Six pages drawing one image XObject at different sizes, as a logo or background
    repeated through a document is: renders of different pages share the decoded image."""
    script = os.path.join(workdir, "shared.js")
    with open(script, "w") as f:
        f.write("""var doc = new PDFDocument();
var image = doc.addImage(new Image(scriptArgs[0]));
var font = doc.addSimpleFont(new Font("Helvetica"));
for (var i = 0; i < 6; i++) {
    var w = 60 + i * 90, h = w * 420 / 640;
    var resources = doc.addObject({XObject: {Im0: image}, Font: {F: font}});
    var contents = "q " + w + " 0 0 " + h + " 40 " + (780 - h) + " cm /Im0 Do Q " +
        "BT /F 12 Tf 40 40 Td (Shared image, page " + (i + 1) + ") Tj ET";
    doc.insertPage(-1, doc.addPage([0, 0, 595, 842], 0, resources, contents));
}
doc.save(scriptArgs[1], "compress,garbage");
""")
    run("mutool", "run", script, jpg, path)


def damaged_content_pdf():
    """No cross-reference table, and a page that names a missing image and font: MuPDF repairs
    the file and draws what it can, which galley reports as warnings."""
    return (b"%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n"
            b"2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n"
            b"3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<<>>>> endobj\n"
            b"4 0 obj <</Length 60>> stream\n0 0 1 rg 10 10 50 50 re f /Im9 Do BT /F9 12 Tf (x) Tj ET\n"
            b"endstream endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n")


def no_pages_pdf():
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


if __name__ == "__main__":
    main()
