"""A PNG of each bet's measured return converging on its exact figure."""

from __future__ import annotations

from typing import Any


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
    fig.savefig(path, dpi=100)
    plt.close(fig)
