#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Plot a collapse matrix (scripts/collapse-matrix.sh): one panel per mode and
target orders, one stacked bar per cell (fill x max_ptes_none) with the share
of the span's mapped pages at each folio order at the end, and the RSS growth
over the faulted pages (%, right axis) as points.

  scripts/collapse-matrix-plot.py DIR OUT.png [TITLE]

Writes OUT.png, and OUT.dat / OUT.gp beside it (the data and the gnuplot script).
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
table = __import__("collapse-table")

ORDERS = list(range(0, 12))


def cells(d):
    out = {}
    for f in sorted(os.listdir(d)):
        if not f.endswith(".json") or f == "info.json":
            continue
        for r in table.rows(os.path.join(d, f)):
            kernel, arch, ps, mode, targets, fill, mpn, mass = r[:8]
            growth = float(r[11])
            shares = {}
            if mass != "-":
                pages = {int(k): int(v) for k, v in (x.split(":") for x in mass.split(","))}
                total = sum(pages.values())
                shares = {o: 100.0 * pages.get(o, 0) / total for o in pages}
            out.setdefault((mode, targets), []).append((int(fill), int(mpn), shares, growth, kernel, ps))
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: collapse-matrix-plot.py DIR OUT.png [TITLE]")
    d, png = sys.argv[1], sys.argv[2]
    panels = cells(d)
    if not panels:
        sys.exit("collapse-matrix-plot.py: no collapse documents in %s" % d)
    base = os.path.splitext(png)[0]
    dat, gp = base + ".dat", base + ".gp"
    keys = sorted(panels, key=lambda k: (k[0], k[1] != "2-9", k[1]))
    kernel = next(iter(panels.values()))[0][4]
    page = next(iter(panels.values()))[0][5]
    title = sys.argv[3] if len(sys.argv) > 3 else "%s (%s-byte pages)" % (kernel, page)
    with open(dat, "w") as f:
        for i, k in enumerate(keys):
            f.write("# panel %d: %s orders %s\n" % (i, k[0], k[1]))
            f.write("cell " + " ".join("o%d" % o for o in ORDERS) + " growth\n")
            for fill, mpn, shares, growth, _, _ in sorted(panels[k]):
                f.write('"%d/%d" %s %.2f\n' % (fill, mpn, " ".join("%.2f" % shares.get(o, 0) for o in ORDERS), growth))
            f.write("\n\n")
    cols = 2
    rows = (len(keys) + cols - 1) // cols
    with open(gp, "w") as g:
        g.write('set terminal pngcairo noenhanced size %d,%d font ",9"\nset output "%s"\n' % (1600, 360 * rows + 60, png))
        g.write('set multiplot layout %d,%d title "collapse matrix: %s; bars: share of mapped pages per folio order at the end; points: RSS growth %% (right axis)"\n' % (rows, cols, title))
        g.write("set style data histograms\nset style histogram rowstacked\nset style fill solid 0.9 border -1\nset boxwidth 0.8\n")
        g.write("set yrange [0:100]\nset ylabel 'share %'\nset y2range [0:*]\nset y2tics\nset y2label 'RSS growth %'\nset xtics rotate by 90 right font ',8'\nset bmargin 6\nset key outside right font ',7'\n")
        g.write("set grid y\n")
        colors = ["#bbbbbb", "#e41a1c", "#ff7f00", "#ffcc00", "#4daf4a", "#00cccc", "#377eb8", "#984ea3", "#f781bf", "#000000", "#a65628", "#666666"]
        for i, k in enumerate(keys):
            g.write('set title "%s, target orders %s (cells: fill%%/max_ptes_none)"\n' % (k[0], k[1]))
            parts = []
            for j, o in enumerate(ORDERS):
                parts.append("'%s' index %d using %d:xtic(1) title '%s' lc rgb '%s'" % (dat, i, j + 2, "order %d" % o if i == 0 else "", colors[j]))
            parts.append("'%s' index %d using 0:%d axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title '%s'" % (dat, i, len(ORDERS) + 2, "RSS growth" if i == 0 else ""))
            g.write("plot " + ", \\\n     ".join(parts) + "\n")
        g.write("unset multiplot\n")
    subprocess.run(["gnuplot", gp], check=True)
    print(png)


if __name__ == "__main__":
    main()
