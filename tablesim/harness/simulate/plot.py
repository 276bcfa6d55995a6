"""A PNG of each bet's measured return converging on its exact figure."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tablecore.errors import InputError


def check_plot_path(path: str) -> None:
    """Refuse, before a long run, a plot it could not write at its end:
    not a .png, a missing or unwritable directory, a directory named as the
    file, or no matplotlib."""
    target = Path(path)
    where = "--plot"
    if target.suffix.lower() != ".png":
        raise InputError(f"{path}: the plot is a PNG: name it FILE.png", where=where)
    if target.is_dir():
        raise InputError(f"{path} is a directory", where=where)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{path}: no directory {folder}", where=where)
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError(f"{path}: not writable", where=where)
    try:
        import matplotlib  # noqa: F401 - only whether it is there
    except ImportError as exc:
        raise InputError(f"matplotlib is needed for a plot ({exc})", where=where) from None


def write_plot(path: str, report: dict[str, Any], trace: list[tuple[int, dict[str, float]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display on a table PC or in CI
    import matplotlib.pyplot as plt

    bets = list(report["bets"])
    fig, axes = plt.subplots(len(bets), 1, figsize=(8, 2.4 * len(bets)), squeeze=False)
    for ax, bet in zip(axes[:, 0], bets):
        xs = [n for n, values in trace if bet in values]
        ys = [values[bet] for n, values in trace if bet in values]
        ax.plot(xs, ys, label="measured", color="tab:blue")
        exact = report["bets"][bet]["exact"]
        if exact is not None:
            ax.axhline(exact, color="tab:red", linestyle="--", label=f"exact {exact:.6f}")
        lo, hi = report["bets"][bet]["ci99"]
        ax.axhspan(lo, hi, color="tab:blue", alpha=0.12, label="final 99% interval")
        ax.set_title(bet, fontsize=10)
        ax.set_xscale("log")
        ax.set_ylabel("return")
        ax.legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel("rounds")
    fig.suptitle(f"{report['game']}: measured return vs exact ({report['rounds']:,} rounds)")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=100)
    except OSError as exc:  # the disk filled, or the directory went, during the run
        raise InputError(f"{path}: cannot write the plot: {exc.strerror or exc}", where="--plot") from None
    finally:
        plt.close(fig)
