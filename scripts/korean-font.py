#!/usr/bin/env python3
"""Subset Noto Sans KR to the Korean the site can show, as WOFF2 (www/fonts/).

A reader on a machine without a Korean font (a fresh Linux install, a school lab, a kiosk) would
see every Korean word as empty boxes. The site ships its own Korean glyphs: every Hangul syllable
and letter of the demo model's Korean vocabulary (any translation is made of those tokens; the
jamo of glued endings such as +ㄴ compose into syllables, so all syllables those can form with the
vocabulary's stems are included too) and of every Korean string of the lab and the lesson.

    python3 scripts/korean-font.py            # writes www/fonts/noto-sans-kr-400.woff2 and OFL.txt
    python3 scripts/korean-font.py --check    # exit 1 if a needed character is missing

Source: Noto Sans KR (Google Fonts release, SIL Open Font License 1.1), from the npm package
@expo-google-fonts/noto-sans-kr (npm pack, cached in target/fonts/). Needs fonttools and brotli
(pip). The output is committed, like the model; tests/e2e/fonts.spec.js (in `make test`) checks it
against scripts/korean-chars.mjs, so that a new string or model never needs a glyph the font lacks.
"""

import argparse
import glob
import json
import os
import re
import struct
import subprocess
import sys
import tarfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
OUT = os.path.join(ROOT, "www", "fonts")
CACHE = os.path.join(ROOT, "target", "fonts")
PACKAGE = "@expo-google-fonts/noto-sans-kr@0.4.3"
# one weight: browsers draw bold Korean from it (the bold face would double the download)
WEIGHTS = {400: "400Regular/NotoSansKR_400Regular.ttf"}
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")


def needed():
    """The characters to keep: scripts/korean-chars.mjs says which (one list for this script and
    for the test that checks the committed font)."""
    out = subprocess.run(["node", os.path.join(ROOT, "scripts", "korean-chars.mjs")], check=True, capture_output=True, text=True)
    return set(out.stdout)


def source(weight):
    os.makedirs(CACHE, exist_ok=True)
    tgz = glob.glob(os.path.join(CACHE, "expo-google-fonts-noto-sans-kr-*.tgz"))
    if not tgz:
        subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", CACHE], check=True, stdout=subprocess.DEVNULL)
        tgz = glob.glob(os.path.join(CACHE, "expo-google-fonts-noto-sans-kr-*.tgz"))
    out = os.path.join(CACHE, os.path.basename(WEIGHTS[weight]))
    if not os.path.exists(out):
        with tarfile.open(tgz[0]) as t:
            for name in (f"package/{WEIGHTS[weight]}", "package/LICENSE_FONT"):
                m = t.getmember(name)
                m.name = os.path.basename(name)
                t.extract(m, CACHE)
    return out


def covered(path):
    from fontTools.ttLib import TTFont

    return {chr(c) for c in TTFont(path).getBestCmap()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that the committed fonts hold every needed character")
    a = ap.parse_args()
    chars = needed()
    if a.check:
        missing = set()
        for w in WEIGHTS:
            missing |= chars - covered(os.path.join(OUT, f"noto-sans-kr-{w}.woff2"))
        missing = {c for c in missing if HANGUL.match(c)}
        if missing:
            print(f"www/fonts lacks {len(missing)} Korean characters: {''.join(sorted(missing))[:80]}; run python3 scripts/korean-font.py")
            return 1
        print(f"www/fonts holds all {len([c for c in chars if HANGUL.match(c)])} Korean characters the site can show")
        return 0
    from fontTools import subset

    os.makedirs(OUT, exist_ok=True)
    for w in WEIGHTS:
        opts = subset.Options()
        opts.flavor = "woff2"
        opts.layout_features = ["*"]
        opts.name_IDs = ["*"]
        opts.notdef_outline = True
        opts.hinting = False
        font = subset.load_font(source(w), opts)
        s = subset.Subsetter(opts)
        s.populate(text="".join(sorted(chars)))
        s.subset(font)
        dest = os.path.join(OUT, f"noto-sans-kr-{w}.woff2")
        subset.save_font(font, dest, opts)
        print(f"{dest}: {len(chars)} characters, {os.path.getsize(dest) // 1024} KB")
    lic = os.path.join(CACHE, "LICENSE_FONT")
    with open(lic, encoding="utf-8") as f, open(os.path.join(OUT, "OFL.txt"), "w", encoding="utf-8") as g:
        g.write(f.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
