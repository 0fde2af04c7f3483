"""Plots of a benchmark CSV (bench/measure.py's latest.csv): time per step against size for both
schedules, and the scaling from 1 GPU to more (strong; weak for "<program>@weak" rows), as PNGs. Run where matplotlib is installed
(`pip install matplotlib`): python3 bench/report.py docs/benchmarks/latest.csv docs/benchmarks/
"""
import collections
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def panels(n, columns=4):
    """A figure of n plots, at most `columns` to a row (the unused ones hidden), and its axes."""
    rows = (n + columns - 1) // columns
    width = min(n, columns)
    fig, axes = plt.subplots(rows, width, figsize=(5 * width, 4 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def series_name(r):
    """A row's schedule, with its backend where that is not p2p: "cpu-free (nvshmem)"."""
    backend = r.get("backend") or "p2p"
    return r["schedule"] if backend == "p2p" else f'{r["schedule"]} ({backend})'


def main(csv_path, out_dir):
    rows = [r for r in csv.DictReader(open(csv_path)) if r["us_per_step"]]
    programs = sorted({r["program"] for r in rows})
    # A merged CSV holds the rows of several runs: every device and the dates they span.
    device = "; ".join(sorted({r["device"] for r in rows})) or "?"
    dates = sorted({r["date"] for r in rows})
    date = (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") if dates else "?"
    os.makedirs(out_dir, exist_ok=True)

    # Time per step against size: the strong-scaling programs (a weak-scaling row has one size).
    strong = [p for p in programs if not p.endswith("@weak")]
    fig, axes = panels(len(strong))
    for ax, program in zip(axes, strong):
        series = collections.defaultdict(list)
        for r in rows:
            if r["program"] == program:
                series[(series_name(r), int(r["gpus"]))].append((int(r["size"]), float(r["us_per_step"])))
        for (schedule, gpus), points in sorted(series.items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                    linestyle="-" if schedule == "cpu-free" else "--", label=f"{schedule}, {gpus} GPU")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size (points per dimension)")
        ax.set_ylabel("us per step")
        ax.set_title(program)
        ax.legend(fontsize=7)
    fig.suptitle(f"time per step, {device}, {date}")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "time_per_step.png"), dpi=110)

    fig, axes = panels(len(programs))
    for ax, program in zip(axes, programs):
        weak = program.endswith("@weak")
        by = {(series_name(r), int(r["size"]), int(r["gpus"])): float(r["us_per_step"])
              for r in rows if r["program"] == program}
        for schedule in sorted({k[0] for k in by}):
            sizes = sorted({k[1] for k in by if k[0] == schedule})
            for size in sizes:
                gpus = sorted(g for (s, n, g) in by if s == schedule and n == size)
                if 1 not in gpus or len(gpus) < 2:
                    continue
                # Strong scaling: t(1) / t(g), ideally g. Weak ("@weak": the same points per GPU):
                # the efficiency t(1) / t(g), ideally 1.
                speedup = [by[(schedule, size, 1)] / by[(schedule, size, g)] for g in gpus]
                ax.plot(gpus, speedup, marker="o", linestyle="-" if schedule == "cpu-free" else "--",
                        label=f"{schedule}, {size}" + (" per GPU" if weak else ""))
        ax.plot([1, 4], [1, 1] if weak else [1, 4], color="grey", linewidth=0.5)
        if weak:  # on a fixed scale, with the 95% target: a 0.03% dip must not look like a fall
            ax.axhline(0.95, color="red", linewidth=0.5, linestyle=":")
            ax.set_ylim(0.5, 1.05)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("efficiency t(1) / t(GPUs) (weak scaling)" if weak else "speed-up over 1 GPU (strong scaling)")
        ax.set_title(program)
        ax.legend(fontsize=7)
    fig.suptitle(f"scaling, {device}, {date}")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "scaling.png"), dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
