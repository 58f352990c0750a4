"""The quantization report as one self-contained HTML page: what was quantized and how (model, output file,
options, calibration set), the whole model's agreement with the float model, the layers ranked by the error they
add (the terminal table's columns, explained), a bar chart of every layer's SQNR in graph order, and every
tensor. CSS and the chart (SVG) are inline and nothing is fetched, so the page reads offline, from a device's
disk or an e-mail.

It reads only the report's plain fields (Report.to_dict's keys), so a field another part adds shows here once
named below."""

from __future__ import annotations

import html
import math
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .report import Report

# 6.02 dB per bit: each bit halves the step, so the rounding error's amplitude halves and its power quarters:
# 10*log10(4) = 6.02 dB.
DB_PER_BIT = 20 * math.log10(2)
EXACT_DB = 100.0  # how an exact tensor (no error at all) is drawn and ranked, as the report ranks it

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1d2733;
background:#f5f7fa;line-height:1.45}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:32px 0 8px;border-bottom:2px solid #d9e1ea;padding-bottom:4px}
.sub{color:#5a6978;margin:0 0 18px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{background:#fff;border:1px solid #d9e1ea;border-radius:8px;padding:12px 16px;min-width:190px;flex:1}
.card .v{font-size:1.7em;font-weight:600}.card .k{color:#5a6978;font-size:.9em}
.good{color:#1e7d45}.fair{color:#a66300}.poor{color:#b3261e}
table{border-collapse:collapse;background:#fff;width:100%;font-size:.92em}
th,td{border:1px solid #d9e1ea;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef2f6}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.keep td{background:#fdecea}td.name{word-break:break-all}td.op{white-space:nowrap}
.bar{display:inline-block;height:10px;background:#c0392b;border-radius:2px;vertical-align:middle;margin-right:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;background:#fff;border:1px solid #d9e1ea;
border-radius:8px;padding:12px 16px;margin:0}
dt{font-weight:600}dd{margin:0}
.explain{background:#fff;border:1px solid #d9e1ea;border-radius:8px;padding:4px 16px}
code{background:#eef2f6;padding:0 3px;border-radius:3px}
svg text{font-family:inherit}
"""


def _db(v: float | None) -> str:
    return "exact" if v is None else ("-inf" if v == -math.inf else f"{v:.1f}")


def _grade(v: float | None) -> str:
    """good from 30 dB (about 5 bits of agreement), fair from 15 dB, poor below."""
    v = EXACT_DB if v is None else v
    return "good" if v >= 30 else "fair" if v >= 15 else "poor"


def _e(value: Any) -> str:
    return html.escape(str(value))


def _setup(report: Report) -> str:
    meta, calibration = report.meta, report.calibration
    rows = [("model", meta.get("model")), ("written to", meta.get("output"))]
    options = meta.get("options") or {}
    if options:
        shown = []
        for key, value in options.items():
            if key == "percentile" and options.get("calibration") != "percentile":
                continue  # only read by percentile calibration
            if key == "calibration" and options.get("mode", "int8") != "int8":
                continue  # only int8 mode calibrates activation ranges
            if key == "per_channel" and options.get("mode") == "float16":
                continue  # float16 weights have no scales
            if value in (None, [], ""):
                continue
            shown.append(f"{key} = {value if not isinstance(value, list) else ', '.join(map(str, value))}")
        rows.append(("options", "; ".join(shown)))
    rows += [("chosen by default", line) for line in meta.get("auto") or []]  # int8's transformer choices
    samples = calibration.get("samples", report.samples)
    where = meta.get("calibration_file")
    inputs = "; ".join(f"{i['name']}: {i['dtype']} {i['shape']} in [{i['min']:.4g}, {i['max']:.4g}]"
                       for i in calibration.get("inputs", []))
    rows.append(("calibration set", f"{where + ': ' if where else ''}{samples} samples"
                 + (f" ({inputs})" if inputs else "")))
    return "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v) if v not in (None, '') else '<i>not given</i>'}</dd>"
                            for k, v in rows) + "</dl>"


def _cards(report: Report) -> str:
    cards = []
    for a in report.agreement:
        v = a["sqnr_db"]
        bits = "no error" if v is None else f"about {max(v, 0) / DB_PER_BIT:.1f} bits agree"
        cards.append(f"<div class='card'><div class='v {_grade(v)}'>{_db(v)} dB</div><div class='k'>output SQNR "
                     f"of <b>{_e(a['output'])}</b> ({bits})</div></div>")
        if a["top1_rows"]:
            share = a["top1_agree"] / a["top1_rows"]
            grade = "good" if share >= 0.99 else "fair" if share >= 0.9 else "poor"
            cards.append(f"<div class='card'><div class='v {grade}'>{100 * share:.1f}%</div><div class='k'>top-1 "
                         f"agreement with the float model: {a['top1_agree']} of {a['top1_rows']} calibration "
                         f"inputs give the same class</div></div>")
    suggestion = ", ".join(report.keep_float_suggestion) or "none"
    cards.append(f"<div class='card'><div class='v'>{len(report.layers)}</div><div class='k'>layers measured over "
                 f"{report.samples} samples; suggested to keep float: <b>{_e(suggestion)}</b></div></div>")
    return "<div class='cards'>" + "".join(cards) + "</div>"


EXPLANATION = f"""<div class='explain'>
<p><b>SQNR</b> (signal-to-quantization-noise ratio) compares a tensor of the int8 model with the same tensor of the
float model over the calibration inputs: <code>10&middot;log10(&Sigma; float&sup2; / &Sigma; (float &minus;
int8)&sup2;)</code>, in decibels (dB). Higher is better; <i>exact</i> means no difference at all. Every bit of
resolution halves the rounding step, so it halves the error and quarters its power: <b>6 dB is roughly one bit</b>
({DB_PER_BIT:.2f} dB). An int8 tensor that uses its whole range well reaches 40&ndash;48 dB; 30 dB still agrees
to about 5 bits; below 15 dB (under 3 bits) the layer is worth a look.</p>
<p>The ranking's columns, as in the terminal's table: <b>SQNR dB</b>: the layer's output against the float model's.
<b>in dB</b>: the same for its worst activation input, the error it inherits. <b>added</b>: in dB &minus; SQNR
dB, the error this layer adds itself (never below 0): a layer with a high <i>added</i> is where precision is lost,
however good its inputs were; one whose SQNR is low only because its inputs were is not to blame. A layer adding
{{suggest:.0f}} dB or more (a bit) is suggested to keep float (<code>--keep-float NAME</code>).
<b>cosine</b>: the cosine similarity of the two tensors (1: same direction). <b>RMSE / scale</b>: the error's
root mean square in units of the int8 step; rounding alone gives about 0.29 (1/&radic;12), more means clipping or
error carried from earlier layers.</p>
<p><b>Whole model</b>: the output's SQNR and the share of calibration inputs on which the int8 model's largest
output (its top-1 class) is the float model's.</p></div>"""


def _ranking(report: Report, limit: int = 40) -> str:
    from .report import SUGGEST_ADDED_DB as suggest

    keep = set(report.keep_float_suggestion)
    top = max([layer.added_db for layer in report.layers] + [1.0])
    rows = []
    for rank, layer in enumerate(report.layers[:limit], 1):
        where = f"{layer.subgraph}:" if layer.subgraph else ""
        color = "#c0392b" if layer.added_db >= suggest else "#8a9aab"  # red from the keep-float threshold
        bar = (f"<span class='bar' style='width:{60 * layer.added_db / top:.0f}px;background:{color}'></span>"
               if layer.added_db else "")
        rows.append(f"<tr class='{'keep' if layer.output in keep else ''}'><td class='n'>{rank}</td>"
                    f"<td class='op'>#{where}{layer.index} {_e(layer.op)}</td><td class='n'>{_db(layer.sqnr_db)}</td>"
                    f"<td class='n'>{_db(layer.input_sqnr_db)}</td><td class='n'>{bar}{layer.added_db:.1f}</td>"
                    f"<td class='name'>{_e(layer.output)}</td></tr>")
    more = (f"<p class='sub'>{len(report.layers) - limit} more layers in the JSON report.</p>"
            if len(report.layers) > limit else "")
    return ("<table><tr><th>rank</th><th>op</th><th>SQNR dB</th><th>in dB</th><th>added dB</th><th>output</th></tr>"
            + "".join(rows) + "</table>" + more)


def _chart(report: Report) -> str:
    """Every layer's output SQNR in graph order, with gridlines every 6 dB (a bit); red: suggested to keep."""
    order = sorted(report.layers, key=lambda layer: (layer.subgraph, layer.index))
    if not order:
        return "<p class='sub'>No layer was measured.</p>"
    values = [EXACT_DB if layer.sqnr_db is None else max(layer.sqnr_db, 0.0) for layer in order]
    top = max(6.0, min(EXACT_DB, max(values)))
    top = math.ceil(top / 6) * 6
    label_w, plot_w, bar_h, head = 390, 500, 18, 22
    height = head + len(order) * bar_h + 6
    step = 6 if top <= 60 else 12
    caption = (f"<p class='sub'>Gridlines every {step} dB ({step // 6} bit{'s' if step > 6 else ''}); red: suggested to "
               f"keep float; <i>exact</i> is drawn at {EXACT_DB:.0f} dB.</p>")
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{label_w + plot_w + 80}' height='{height}' "
           "role='img' aria-label='SQNR per layer'>")
    parts = [caption, svg]
    for db in range(0, int(top) + 1, step):
        x = label_w + db / top * plot_w
        parts.append(f"<line x1='{x:.1f}' y1='{head - 4}' x2='{x:.1f}' y2='{height}' stroke='#d9e1ea'/>"
                     f"<text x='{x:.1f}' y='12' font-size='10' text-anchor='middle' fill='#5a6978'>{db} dB</text>")
    keep = set(report.keep_float_suggestion)
    for k, (layer, v) in enumerate(zip(order, values)):
        y = head + k * bar_h
        w = min(v, top) / top * plot_w
        color = "#c0392b" if layer.output in keep else "#2e86c1"
        where = f"{layer.subgraph}:" if layer.subgraph else ""
        name = layer.output if len(layer.output) <= 34 else "…" + layer.output[-33:]
        parts.append(f"<text x='0' y='{y + 13}' font-size='11'>{_e(f'#{where}{layer.index} {layer.op} {name}')}"
                     f"</text><rect x='{label_w}' y='{y + 3}' width='{w:.1f}' height='{bar_h - 6}' fill='{color}'>"
                     f"<title>{_e(layer.output)}: {_db(layer.sqnr_db)} dB</title></rect>"
                     f"<text x='{label_w + w + 5:.1f}' y='{y + 13}' font-size='11'>{_db(layer.sqnr_db)}</text>")
    return "".join(parts) + "</svg>"


def _tensors(report: Report) -> str:
    rows = "".join(f"<tr><td class='name'>{_e(t.name)}</td><td>{t.dtype}</td><td class='n'>{_db(t.sqnr_db)}</td>"
                   f"<td class='n'>{t.cosine:.5f}</td><td class='n'>"
                   f"{'' if t.rmse_over_scale is None else f'{t.rmse_over_scale:.3f}'}</td></tr>"
                   for t in report.tensors)
    return ("<table><tr><th>tensor</th><th>type</th><th>SQNR dB</th><th>cosine</th><th>RMSE / scale</th></tr>"
            + rows + "</table>")


def render(report: Report) -> str:
    from .report import SUGGEST_ADDED_DB

    model = report.meta.get("model")
    title = f"Quantization report: {os.path.basename(model)}" if model else "Quantization report"
    output = report.meta.get("output")
    subtitle = (f"{_e(model)} &rarr; {_e(output)}" if model and output else
                "the int8 model against its float original over the calibration inputs")
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>"
            f"<h1>{_e(title)}</h1><p class='sub'>{subtitle}</p>"
            f"<h2>Whole model</h2>{_cards(report)}"
            f"<h2>What was quantized</h2>{_setup(report)}"
            f"<h2>How to read this report</h2>{EXPLANATION.format(suggest=SUGGEST_ADDED_DB)}"
            "<h2>Layers ranked by the error they add</h2>"
            "<p class='sub'>Red rows: suggested to keep float; red bars: the layer adds a bit or more.</p>"
            f"{_ranking(report)}"
            f"<h2>SQNR per layer, in graph order</h2>{_chart(report)}"
            f"<h2>Every tensor</h2>{_tensors(report)}"
            "<p class='sub'>Written by rillet quantize (rillet.quant.report).</p></main></body></html>")
