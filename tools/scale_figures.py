"""The scaling model's predictions as the MP paper's Figs. 6–7 [MP §IV-B]: Δsch and Δrel,
average and maximum, vs m (Fig. 6(a), (b), (d), (e)); Δsch vs n at m = 48 (Fig. 6(c)) and at
m = 32 (Fig. 7(a)); the paper's stated values drawn as markers.

    python3 tools/scale_paper.py predict    # docs/reproductions/scale-paper.json
    python3 tools/scale_figures.py          # docs/reproductions/scale-*.svg

Reads the predictions `tools/scale_paper.py predict` wrote (the model run by `schedlab
scale` with examples/costs/mp-paper-m8.toml); writes standalone SVG (log-scale y: the
overheads span four orders of magnitude) without a plotting library.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale_paper import ARCHS, M8_MAX_SCH, OUT_JSON, ROOT, STATED  # noqa: E402

OUT = os.path.join(ROOT, "docs", "reproductions")
COLORS = {"global-lock": "#4e79a7", "global-lock-di": "#76b7b2", "message-passing": "#e15759", "push-pull": "#f28e2b"}
NAMES = {"global-lock": "GSN-EDF (global-lock)", "global-lock-di": "GSN-EDF-DI (global-lock-di)",
         "message-passing": "G-EDF-MP (message-passing)", "push-pull": "SD (push-pull)"}
W, H, L, R, T, B = 560, 380, 70, 190, 40, 50


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def chart(title, xlabel, series, stated, path, xlog=False):
    """series: {arch: [(x, y_us)]}; stated: [(arch, x, y_us, relation)]."""
    ys = [y for pts in series.values() for _, y in pts if y > 0] + [y for _, _, y, _ in stated]
    xs = [x for pts in series.values() for x, _ in pts] + [x for _, x, _, _ in stated]
    if not ys or not xs:
        return
    y0 = 10 ** math.floor(math.log10(min(ys)))
    y1 = 10 ** math.ceil(math.log10(max(ys)))
    x0, x1 = min(xs), max(xs)
    fx = (lambda x: math.log(x)) if xlog else (lambda x: x)
    px = lambda x: L + (fx(x) - fx(x0)) / ((fx(x1) - fx(x0)) or 1) * (W - L - R)
    py = lambda y: T + (math.log10(y1) - math.log10(max(y, y0))) / (math.log10(y1) - math.log10(y0)) * (H - T - B)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif">',
           f'<rect width="{W}" height="{H}" fill="#fff"/>',
           f'<text x="{(W - R + L) / 2}" y="22" text-anchor="middle" font-size="14">{esc(title)}</text>']
    e = round(math.log10(y0))
    while 10 ** e <= y1 * 1.0001:
        y = py(10 ** e)
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e6e6"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{10 ** e:g}</text>')
        e += 1
    ticks = sorted(set(x for pts in series.values() for x, _ in pts))
    for x in ticks:
        out.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{H - B}" y2="{H - B + 4}" stroke="#000"/>')
        out.append(f'<text x="{px(x):.1f}" y="{H - B + 16}" text-anchor="middle" font-size="11">{x:g}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#000"/>')
    out.append(f'<text x="{(W - R + L) / 2}" y="{H - 12}" text-anchor="middle" font-size="12">{esc(xlabel)}</text>')
    out.append(f'<text x="16" y="{(H - B + T) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 {(H - B + T) / 2})">µs (log scale)</text>')
    ly = T + 10
    for arch, pts in series.items():
        c = COLORS[arch]
        d = " ".join(f"{'M' if i == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for i, (x, y) in enumerate(pts) if y > 0)
        out.append(f'<path d="{d}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in pts:
            if y > 0:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{c}"><title>{esc(NAMES[arch])}: {y:,.2f} µs at {x:g}</title></circle>')
        out.append(f'<line x1="{W - R + 10}" x2="{W - R + 30}" y1="{ly}" y2="{ly}" stroke="{c}" stroke-width="2"/>')
        out.append(f'<text x="{W - R + 34}" y="{ly + 4}" font-size="10">{esc(NAMES[arch])}</text>')
        ly += 16
    for arch, x, y, rel in stated:
        c = COLORS[arch]
        sym = {"=": "", "≈": "≈", ">": "&gt;", "<": "&lt;"}[rel]
        out.append(f'<path d="M{px(x) - 5:.1f},{py(y) - 5:.1f} L{px(x) + 5:.1f},{py(y) + 5:.1f} M{px(x) - 5:.1f},{py(y) + 5:.1f} L{px(x) + 5:.1f},{py(y) - 5:.1f}" stroke="{c}" stroke-width="2"><title>stated: {sym}{y:,.2f} µs</title></path>')
        if sym:
            out.append(f'<text x="{px(x) + 7:.1f}" y="{py(y) + 4:.1f}" font-size="10" fill="{c}">{sym}</text>')
    out.append(f'<text x="{W - R + 10}" y="{ly + 8}" font-size="10">× the paper\'s stated values</text>')
    out.append(f'<text x="{W - R + 10}" y="{ly + 22}" font-size="10">(m = 8 maxima of Δsch:</text>')
    out.append(f'<text x="{W - R + 10}" y="{ly + 34}" font-size="10">the calibration targets)</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {os.path.relpath(path, ROOT)}")


def main():
    with open(OUT_JSON, encoding="utf-8") as f:
        res = json.load(f)["results"]
    ms = lambda arch: sorted(int(m) for m in res.get(arch, {}) if int(m) <= 64)
    by_arch = {ARCHS[s]: s for s in ARCHS}
    for o, sym in (("schedule", "Δsch"), ("release", "Δrel")):
        for stat in ("max", "avg"):
            series = {a: [(m, res[a][str(m)]["pooled"][o][f"{stat}_us"]) for m in ms(a) if o in res[a][str(m)]["pooled"]]
                      for a in COLORS if a in res}
            stated = [(ARCHS[s], m, v, rel) for s, oo, st, m, rel, v, _ in STATED if oo == o and st == stat and m <= 64]
            if o == "schedule" and stat == "max":
                stated += [(a, 8, v, "=") for a, v in M8_MAX_SCH.items()]
            chart(f"{stat} {sym} vs m (predicted; MP Fig. 6)", "m (CPUs)", series, stated,
                  os.path.join(OUT, f"scale-{o}-{stat}-vs-m.svg"))
    for m, fig in ((48, "Fig. 6(c)"), (32, "Fig. 7(a)")):
        series = {}
        for a in COLORS:
            r = res.get(a, {}).get(str(m), {}).get("per_n", {}).get("schedule")
            if r:
                series[a] = [(int(n), v["max_us"]) for n, v in sorted(r.items(), key=lambda kv: int(kv[0]))]
        stated = [(ARCHS[s], x, v, rel) for s, oo, st, mm, rel, v, _ in STATED
                  if oo == "schedule" and st == "max" and mm == m for x in [m * 5]]
        chart(f"max Δsch vs n at m = {m} (predicted; MP {fig})", "n (tasks)", series, stated,
              os.path.join(OUT, f"scale-schedule-max-vs-n-m{m}.svg"))
    del by_arch


if __name__ == "__main__":
    main()
