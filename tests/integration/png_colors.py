#!/usr/bin/python3
"""Counts the pixels of given colours in a PNG (Debian's python3-pil).

usage: png_colors.py FILE R,G,B [R,G,B ...]  ->  one count per colour, space-separated
Colours match within 8 per channel (anti-aliased edges are not counted).
"""
import sys

from PIL import Image


def main():
    image = Image.open(sys.argv[1]).convert("RGB")
    wanted = [tuple(int(v) for v in c.split(",")) for c in sys.argv[2:]]
    counts = [0] * len(wanted)
    for n, pixel in image.getcolors(maxcolors=1 << 24):
        for i, c in enumerate(wanted):
            if all(abs(pixel[k] - c[k]) <= 8 for k in range(3)):
                counts[i] += n
    print(" ".join(str(c) for c in counts))


if __name__ == "__main__":
    main()
