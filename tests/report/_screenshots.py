# ruff: noqa: E501  (the comparison runs as JS in the page)
"""Screenshot comparison for the page tests, robust across machines.

What is compared is a *layout fingerprint* of an element, not its picture: the text made
transparent (fonts and their antialiasing differ between machines and Chromium versions) and
the task boxes filled solid, so the image holds the boxes' places and the edges. Both images
are reduced to grayscale averaged over ``BLOCK`` x ``BLOCK`` pixels; a block differs when its
gray level moves by more than ``LEVEL``; the check fails when the sizes differ by more than
``SIZE_SLACK`` pixels or more than ``SHARE`` of the blocks differ. A task box moved by a few
pixels changes many blocks by far more than ``LEVEL``; a curve antialiased differently moves a
block by a few levels.

The references live in ``tests/report/screenshots/``. A failure writes the new fingerprint,
the reference and a diff image (differing blocks red) to a folder named in the message,
besides the ordinary screenshot for a reader. To accept a change, run the tests with
``PLANEVAL_UPDATE_SCREENSHOTS=1`` and commit the new PNGs. ``PLANEVAL_SCREENSHOTS=DIR`` keeps
every screenshot (fingerprints and ordinary ones) in DIR, pass or fail.

The images are decoded and compared in the same Chromium (canvas), so no image library is
needed.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REFERENCES = Path(__file__).parent / "screenshots"
BLOCK = 4
LEVEL = 40
SHARE = 0.0005
SIZE_SLACK = 2

FINGERPRINT_CSS = """
.graph-box svg text{fill:transparent!important}
.graph-box svg g.task rect{fill:#1f2328!important}
.graph-box .graph-tools{visibility:hidden}
"""

_COMPARE_JS = """async ([a, b, block, level]) => {
 const load = src => new Promise((ok, bad) => { const i = new Image(); i.onload = () => ok(i); i.onerror = bad; i.src = src; });
 const [A, B] = [await load(a), await load(b)];
 const w = Math.min(A.width, B.width), h = Math.min(A.height, B.height);
 const W = Math.ceil(w / block), H = Math.ceil(h / block);
 const gray = img => {
  const c = document.createElement('canvas'); c.width = w; c.height = h; const x = c.getContext('2d');
  x.fillStyle = '#fff'; x.fillRect(0, 0, w, h); x.drawImage(img, 0, 0); const d = x.getImageData(0, 0, w, h).data;
  const sum = new Float64Array(W * H), n = new Float64Array(W * H);
  for (let y = 0; y < h; y++) for (let i = 0; i < w; i++) { const k = (y * w + i) * 4; const o = Math.floor(y / block) * W + Math.floor(i / block);
   sum[o] += 0.299 * d[k] + 0.587 * d[k + 1] + 0.114 * d[k + 2]; n[o]++; }
  return sum.map((s, o) => s / n[o]); };
 const ga = gray(A), gb = gray(B);
 const c = document.createElement('canvas'); c.width = W; c.height = H; const x = c.getContext('2d'); const out = x.createImageData(W, H);
 let differ = 0;
 for (let o = 0; o < W * H; o++) { const bad = Math.abs(ga[o] - gb[o]) > level; if (bad) differ++;
  const v = 155 + ga[o] * 0.39; out.data.set(bad ? [207, 34, 46, 255] : [v, v, v, 255], o * 4); }
 x.putImageData(out, 0, 0);
 return {size: [A.width, A.height, B.width, B.height], differ, blocks: W * H, diff: c.toDataURL('image/png')};
}"""


@dataclass
class Verdict:
    same: bool
    why: str


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def compare_png(pg: Any, new: bytes, reference: bytes) -> tuple[Verdict, bytes]:
    """Compare two fingerprints in the page ``pg``; the verdict and the diff image."""
    r = pg.evaluate(_COMPARE_JS, [_data_url(new), _data_url(reference), BLOCK, LEVEL])
    diff = base64.b64decode(r["diff"].split(",", 1)[1])
    nw, nh, rw, rh = r["size"]
    if abs(nw - rw) > SIZE_SLACK or abs(nh - rh) > SIZE_SLACK:
        return Verdict(False, f"size {nw}x{nh}, reference {rw}x{rh}"), diff
    share = r["differ"] / max(1, r["blocks"])
    why = f"{r['differ']} of {r['blocks']} blocks differ ({share:.2%}, limit {SHARE:.2%})"
    return Verdict(share <= SHARE, why), diff


def check_screenshot(pg: Any, element: Any, name: str, out_dir: Path) -> None:
    """Fingerprint ``element`` (a locator) and compare it with the reference ``name``.png;
    the ordinary screenshot goes to ``out_dir`` (or ``PLANEVAL_SCREENSHOTS``) for a reader."""
    keep = os.environ.get("PLANEVAL_SCREENSHOTS")
    folder = Path(keep) if keep else out_dir
    folder.mkdir(parents=True, exist_ok=True)
    element.screenshot(path=str(folder / f"{name}.screenshot.png"))
    style = pg.add_style_tag(content=FINGERPRINT_CSS)
    try:
        new = element.screenshot()
    finally:
        style.evaluate("s => s.remove()")
    reference = REFERENCES / f"{name}.png"
    if os.environ.get("PLANEVAL_UPDATE_SCREENSHOTS") == "1":
        REFERENCES.mkdir(exist_ok=True)
        reference.write_bytes(new)
        return
    if keep:
        (folder / f"{name}.png").write_bytes(new)
    if not reference.is_file():
        (folder / f"{name}.png").write_bytes(new)
        raise AssertionError(
            f"no reference {reference}; the new one is in {folder} "
            "(run with PLANEVAL_UPDATE_SCREENSHOTS=1 to accept it)"
        )
    verdict, diff = compare_png(pg, new, reference.read_bytes())
    if not verdict.same:
        (folder / f"{name}.png").write_bytes(new)
        (folder / f"{name}.reference.png").write_bytes(reference.read_bytes())
        (folder / f"{name}.diff.png").write_bytes(diff)
        raise AssertionError(
            f"{name}: the layout changed: {verdict.why}. New image, reference and diff "
            f"(differing blocks red) are in {folder}; if the change is right, run with "
            "PLANEVAL_UPDATE_SCREENSHOTS=1 and commit tests/report/screenshots/"
        )
