"""png.py - what the grader reads of a PNG file: whether it is a figure
of the kit's size with something plotted on it (png_problem), by its
chunks and its inflated rows, with the standard library alone."""

import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}     # by colour type, at 8 bits a channel


def png_problem(png, size):
    """What keeps png from being a figure of size (width, height) with
    something plotted on it, or None. Its chunks must be whole (CRCs
    right), and its image data must inflate to exactly size's rows. Plotted:
    at least a third of the rows hold more than the background (a row of
    one colour, whatever filter PNG gave it, is one value after its first
    pixel); the kit's figures have 54-89%, a blank one 0%."""
    if png[:8] != PNG_SIGNATURE:
        return "is not a PNG file"
    pos, header, idat = 8, None, []
    while pos + 12 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        if len(data) != length or png[pos + 8 + length:pos + 12 + length] != \
                struct.pack(">I", zlib.crc32(kind + data)):
            return "is a damaged PNG file (a chunk cut short or with a wrong CRC)"
        if kind == b"IHDR" and length == 13:
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        return "is a PNG file without an image"
    width, height, depth, colour, _, _, interlace = header
    if (width, height) != size:
        return f"is {width}x{height} pixels, not the {size[0]}x{size[1]} the kit draws"
    if depth != 8 or colour not in PNG_CHANNELS or interlace:
        return "is not a PNG file as gnuplot's pngcairo draws it (8 bits a channel, not interlaced)"
    pixel = PNG_CHANNELS[colour]
    row = 1 + width * pixel
    try:
        raw = zlib.decompressobj().decompress(b"".join(idat), row * height + 1)
    except zlib.error:
        return "is a PNG file whose image data do not inflate"
    if len(raw) != row * height:
        return f"is a PNG file whose image data are not {height} rows of {width} pixels"
    plotted = sum(len(set(raw[r * row + 1 + pixel:(r + 1) * row])) > 1 for r in range(height))
    if plotted < height / 3:
        return f"is blank or nearly: {plotted} of its {height} rows hold more than the background"
    return None
