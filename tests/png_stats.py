#!/usr/bin/python3
"""png_stats.py FILE: print "WIDTH HEIGHT COLOURS INKED" for an 8-bit RGB(A)
PNG, INKED the share of pixels that differ from the top-left one (the page's
background). The standard library only: the tests need no PIL."""
import struct
import sys
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def rows(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour in (2, 6), 'not 8-bit RGB(A)'
            bpp = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, None, []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x] if prev else 0
            c = prev[x - bpp] if prev and x >= bpp else 0
            line[x] = (line[x] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out


w, h, bpp, lines = rows(sys.argv[1])
bg, colours, inked = lines[0][:bpp], set(), 0
for line in lines:
    for x in range(0, len(line), bpp * 2):	# every other pixel: fast enough
        px = line[x:x + bpp]
        colours.add(px)
        inked += px != bg
print(w, h, len(colours), round(inked / (w * h / 2), 4))
