# SPDX-License-Identifier: GPL-2.0
"""report --heatmap: the SVG's cells against the samples of .events

kvm_events_check.py heatmap, and screenshot: a browser's picture of it.
"""

import re
import xml.etree.ElementTree as ET
import zlib

from kvm_events_truth import fail, perf, read_events, read_truth


# --heatmap: the SVG's cells against the samples of .events
HEATMAP_COLUMNS = 120
HEATMAP_PANELS = 12
HEATMAP_MIN_WIDTH = 1000
SVG = "{http://www.w3.org/2000/svg}"


def heatmap_filter(samples, args):
    """The samples the report keeps with args: --vcpu, -p, --time, --duration"""
    opts = dict(zip(args[::2], args[1::2]))
    if "--vcpu" in opts:
        ids = set()
        for part in opts["--vcpu"].split(","):
            low, _, high = part.partition("-")
            ids.update(range(int(low), int(high or low) + 1))
        samples = [s for s in samples if s.vcpu in ids]
    if "-p" in opts:
        samples = [s for s in samples if s.pid == int(opts["-p"])]
    if "--time" in opts:
        start, end = (round(float(t) * 10**9) for t in opts["--time"].split(","))
        samples = [s for s in samples if start <= s.time <= end]
    if "--duration" in opts:
        least = int(opts["--duration"]) * 1000
        samples = [s for s in samples if s.duration is not None and s.duration >= least]
    return samples


def heatmap_width(first, last, times, header):
    """Columns divide the header's span, or start 1us wide; both double to fit"""
    width = (last - first) // HEATMAP_COLUMNS + 1 if header else HEATMAP_MIN_WIDTH
    while any(max(0, t - first) // width >= HEATMAP_COLUMNS for t in times):
        width *= 2
    return width


def heatmap_panels(root):
    panels = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "panel":
            continue
        cells = {}
        for r in g.iter(SVG + "rect"):
            if r.get("class") == "cell":
                cell = (int(r.get("data-col")), int(r.get("data-bucket")))
                if cell in cells or not r.get("fill", "").startswith("#"):
                    fail("--heatmap", f"{g.get('data-key')}: cell {cell} twice, or no colour")
                cells[cell] = int(r.get("data-count"))
        panels.append((g.get("data-key").partition("/")[0], int(g.get("data-samples")),
                       int(g.get("data-timed")), cells))
    return panels


def heatmap_expected(samples, origin, width):
    keys = {}
    for s in samples:
        key = keys.setdefault(s.key, [0, 0, {}])
        key[0] += 1
        if s.duration is None:
            continue
        key[1] += 1
        cell = (max(0, s.time - origin) // width, min(63, s.duration.bit_length()))
        key[2][cell] = key[2].get(cell, 0) + 1
    return sorted(((k, v[0], v[1], v[2]) for k, v in keys.items()),
                  key=lambda p: (-p[1], p[0]))


def is_pipe(data):
    """A pipe's header is 16 bytes, a file's 104: perf_pipe_file_header"""
    with open(data, "rb") as f:
        return int.from_bytes(f.read(16)[8:], "little") == 16


def cmd_heatmap(data, analysis, svg, args):
    """perf kvm-events report --heatmap SVG: every timed sample in its cell"""
    case = f"{data} --heatmap {' '.join(args)}"
    perf(["kvm-events", "report", "-i", data, "--event", analysis, "--heatmap", svg] + args)
    try:
        root = ET.parse(svg).getroot()
    except ET.ParseError as e:
        fail(case, f"{svg} is not XML: {e}")
        return
    samples = heatmap_filter([s for s in read_events(data) if s.analysis == analysis], args)
    header, _ = read_truth(data)
    origin, width = int(root.get("data-origin")), int(root.get("data-width"))
    columns = int(root.get("data-columns"))
    times = [s.time for s in samples if s.duration is not None]
    # A pipe has no header times: column 0 is the first sample read.
    pipe = is_pipe(data)
    if pipe and not header["header_first"] <= origin <= min(times):
        fail(case, f"origin {origin} is not the first sample's, "
             f"{header['header_first']}..{min(times)}")
    first = origin if pipe else header["header_first"]
    want_width = heatmap_width(first, header["header_last"], times, not pipe)
    if (origin, width) != (first, want_width):
        fail(case, f"origin, width {origin}, {width} != {first}, {want_width}")
    last_col = max((max(0, t - origin) // width for t in times), default=0)
    if not last_col < columns <= HEATMAP_COLUMNS or \
       (not pipe and columns != (header["header_last"] - origin) // width + 1):
        fail(case, f"{columns} columns drawn, the last sample in column {last_col}")
    want = heatmap_expected(samples, origin, width)
    got = heatmap_panels(root)
    if [p[:3] for p in got] != [p[:3] for p in want[:HEATMAP_PANELS]]:
        fail(case, f"panels {[p[:3] for p in got]} != {[p[:3] for p in want[:HEATMAP_PANELS]]}")
    for g, w in zip(got, want):
        if g[3] != w[3]:
            diff = sorted(set(g[3].items()) ^ set(w[3].items()))[:6]
            fail(case, f"{g[0]}: cells differ: {diff}")
        if sum(g[3].values()) != w[2]:
            fail(case, f"{g[0]}: the cells hold {sum(g[3].values())} events, not {w[2]}")
    left = want[HEATMAP_PANELS:]
    left_out = (len(left), sum(p[1] for p in left), sum(p[2] for p in left))
    got_left = tuple(int(root.get(f"data-left-out-{f}")) for f in ("keys", "samples", "timed"))
    if got_left != left_out:
        fail(case, f"left out (keys, samples, timed) {got_left} != {left_out}")
    note = "".join(t.text or "" for t in root.iter(SVG + "text") if t.get("class") == "left-out")
    if left and f"{left_out[0]} keys left out: {left_out[1]} samples" not in note:
        fail(case, f"the note '{note}' does not say what was left out")


def png_pixels(path):
    """Width, height and the distinct pixels of an 8-bit RGB(A) PNG"""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(blob):
        size = int.from_bytes(blob[pos:pos + 4], "big")
        kind, body = blob[pos + 4:pos + 8], blob[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    width, height = int.from_bytes(ihdr[:4], "big"), int.from_bytes(ihdr[4:8], "big")
    depth, colour = ihdr[8], ihdr[9]
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"bit depth {depth}, colour type {colour}: not 8-bit RGB(A)")
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, pixels = zlib.decompress(idat), width * bpp, bytearray(width * bpp), set()
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride if kind else 0):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return width, height, pixels


def visible_fills(svg, width, height):
    """The colours of the legend and of the cells wholly in the window"""
    fills = set()
    for node in ET.parse(svg).getroot():
        dx, dy = 0.0, 0.0
        m = re.match(r"translate\(([\d.]+),([\d.]+)\)", node.get("transform", ""))
        if m:
            dx, dy = float(m.group(1)), float(m.group(2))
        for r in node.iter(SVG + "rect"):
            if r.get("class") not in ("cell", "legend"):
                continue
            x, y = dx + float(r.get("x")), dy + float(r.get("y"))
            if x + float(r.get("width")) <= width and y + float(r.get("height")) <= height:
                fills.add(bytes.fromhex(r.get("fill")[1:]))
    return fills


def cmd_screenshot(png, svg, width, height):
    """A browser's screenshot of the SVG: its size, and the colours drawn"""
    try:
        got_w, got_h, pixels = png_pixels(png)
    except (OSError, ValueError, TypeError, zlib.error) as e:
        fail(png, f"not a PNG that can be read: {e}")
        return
    if (got_w, got_h) != (width, height):
        fail(png, f"{got_w}x{got_h}, not {width}x{height}")
    # Solid fills come out exactly: every colour in view must be there.
    want = visible_fills(svg, width, height)
    missing = sorted(f.hex() for f in want - pixels)
    if len(want) < 2 or missing:
        fail(png, f"{len(want)} colours in view, not drawn: {missing[:8]}")
