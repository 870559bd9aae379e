#!/usr/bin/env python3
"""Checks that rendered charts are PNGs of at least a given size.

    check_png.py FILE.png [FILE.png ...] [--min-width 400] [--min-height 300]

Reads only the PNG signature and the IHDR chunk (standard library only, so
CI needs no matplotlib for it). Prints `FILE: WxH` per file; exits 1 when
any file is missing, not a PNG, or smaller than asked.
"""

import argparse
import struct
import sys

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path):
    """(width, height) from the IHDR chunk, which a PNG must start with."""
    with open(path, "rb") as f:
        head = f.read(24)
    # 8-byte signature, then the first chunk: 4-byte length, b"IHDR", width, height.
    if len(head) < 24 or head[:8] != SIGNATURE or head[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return struct.unpack(">II", head[16:24])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+", metavar="FILE.png")
    p.add_argument("--min-width", type=int, default=400)
    p.add_argument("--min-height", type=int, default=300)
    args = p.parse_args()
    ok = True
    for path in args.files:
        try:
            width, height = png_size(path)
        except (OSError, ValueError) as e:
            print(f"{path}: error: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            ok = False
            continue
        print(f"{path}: {width}x{height}")
        if width < args.min_width or height < args.min_height:
            print(f"{path}: error: smaller than {args.min_width}x{args.min_height}", file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
