import Foundation
import GalleyRaster

/// Decodes PNGs with decoders that share no code with Galley's (Pillow, and netpbm's
/// `pngtopnm`, both installed by the install script) and checks them with `pngcheck`, so a
/// PNG Galley writes is known to be read the same everywhere, not only by its own libpng.
public final class IndependentPNGDecoders {
    private let folder: ScratchFolder
    private var names: [String] = []

    public init() throws {
        folder = try ScratchFolder("independent-png")
    }

    /// Adds a PNG and the RGB pixels it must decode to.
    public func add(_ png: [UInt8], expected: Bitmap, name: String) throws {
        let safe = "\(names.count)-" + name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        try Data(png).write(to: folder.path("\(safe).png"))
        try Data(UnsafeRawBufferPointer(expected.pixels)).write(to: folder.path("\(safe).rgb"))
        names.append(safe)
    }

    /// How many were added.
    public var count: Int { names.count }

    /// One line per PNG that a decoder read differently or `pngcheck` refused (empty when every
    /// one decodes to its expected pixels in both), plus how many each decoder checked.
    public func mismatches() throws -> (problems: [String], checked: Int) {
        // Debian's python3, which has Pillow (python3-pil), rather than another one first on PATH.
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let outcome = try PeerTools.run(python, ["-c", Self.script, folder.url.path])
        guard outcome.status == 0, let last = outcome.stdout.split(separator: "\n").last, let checked = Int(last) else {
            throw PeerToolError(message: "decoder script failed: \(outcome.stdout) \(outcome.stderr)")
        }
        var problems = outcome.stdout.split(separator: "\n").dropLast().map(String.init)
        for name in names {
            let check = try PeerTools.run("pngcheck", ["-q", folder.path("\(name).png").path])
            if check.status != 0 { problems.append("pngcheck \(name): \(check.stdout)\(check.stderr)") }
        }
        return (problems, checked)
    }

    /// Compares each `X.png` with `X.rgb` after decoding with Pillow and with pngtopnm (whose
    /// PBM, PGM or PPM output is expanded to RGB); prints a line per difference, then the count.
    private static let script = #"""
import os, subprocess, sys
from PIL import Image

def netpbm_rgb(data):
    fields, i = [], 0
    while len(fields) < (3 if data[:2] == b"P4" else 4):
        while data[i:i + 1].isspace(): i += 1
        if data[i:i + 1] == b"#":
            while data[i:i + 1] != b"\n": i += 1
            continue
        j = i
        while not data[j:j + 1].isspace(): j += 1
        fields.append(data[i:j]); i = j
    i += 1
    kind, w, h = fields[0], int(fields[1]), int(fields[2])
    body = data[i:]
    if kind == b"P6": return body
    if kind == b"P5": return bytes(v for v in body for _ in range(3))
    if kind == b"P4":
        row = (w + 7) // 8
        out = bytearray()
        for y in range(h):
            for x in range(w):
                bit = body[y * row + x // 8] >> (7 - x % 8) & 1
                out += b"\x00\x00\x00" if bit else b"\xff\xff\xff"
        return bytes(out)
    raise ValueError("unexpected netpbm kind %r" % kind)

folder, checked = sys.argv[1], 0
for name in sorted(os.listdir(folder)):
    if not name.endswith(".png"): continue
    path = os.path.join(folder, name)
    expected = open(path[:-4] + ".rgb", "rb").read()
    image = Image.open(path); image.load()
    if image.convert("RGB").tobytes() != expected:
        print("pillow %s (mode %s) differs" % (name, image.mode))
    pnm = subprocess.run(["pngtopnm", path], capture_output=True)
    if pnm.returncode != 0 or netpbm_rgb(pnm.stdout) != expected:
        print("pngtopnm %s differs %s" % (name, pnm.stderr.decode()[:200]))
    checked += 1
print(checked)
"""#
}
