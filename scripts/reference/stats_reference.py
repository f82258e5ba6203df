"""Reference p-values from SciPy (and statsmodels for Holm) for the statistics tests.

Run once in a throwaway venv (SciPy is not a project dependency):

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install scipy statsmodels
    /tmp/ref/bin/python scripts/reference/stats_reference.py > tests/stats/data/reference.json

Cases are drawn from a seeded generator, so the file is reproducible.
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests


def rank_cases(rng: random.Random) -> list[dict]:
    cases = []
    for n, m in [
        (1, 1),
        (3, 1),
        (5, 1),
        (3, 3),
        (5, 3),
        (5, 5),
        (4, 7),
        (10, 10),
        (8, 12),
        (12, 8),
        (20, 20),
        (30, 10),
    ]:
        for ties in (False, True):
            for shift in (0.0, 0.8):
                if ties:
                    base = [rng.randint(0, 4) for _ in range(n)]
                    cand = [rng.randint(0, 4) + round(shift * 2) for _ in range(m)]
                else:
                    base = [round(rng.lognormvariate(0, 0.4), 6) for _ in range(n)]
                    cand = [round(rng.lognormvariate(shift, 0.4), 6) for _ in range(m)]
                cases.append({"baseline": base, "candidate": cand, **rank_reference(base, cand)})
    return cases


def rank_reference(base: list[float], cand: list[float]) -> dict:
    tied = len(set(base + cand)) < len(base) + len(cand)
    if not tied:
        greater = stats.mannwhitneyu(cand, base, alternative="greater", method="exact").pvalue
        less = stats.mannwhitneyu(cand, base, alternative="less", method="exact").pvalue
        return {
            "p_greater": float(greater),
            "p_less": float(less),
            "method": "scipy mannwhitneyu exact",
        }
    if min(len(base), len(cand)) < 2:
        return {"method": "skipped: permutation_test needs two values per side"}
    if len(base) + len(cand) > 24:
        return {"method": "skipped: too many splits to enumerate"}

    def u_stat(x, y, axis):
        return stats.mannwhitneyu(x, y, axis=axis, method="asymptotic").statistic

    out = {}
    for alternative in ("greater", "less"):
        res = stats.permutation_test(
            (np.array(cand, float), np.array(base, float)),
            u_stat,
            permutation_type="independent",
            alternative=alternative,
            n_resamples=np.inf,
            vectorized=True,
        )
        out[f"p_{alternative}"] = float(res.pvalue)
    out["method"] = "scipy permutation_test over every split of the U statistic (mid-ranks)"
    return out


def fisher_cases() -> list[dict]:
    cases = []
    for n, m in [(5, 5), (10, 10), (20, 20), (10, 5), (3, 8)]:
        for kb in range(0, n + 1, max(1, n // 4)):
            for kc in range(0, m + 1, max(1, m // 4)):
                table = [[kc, m - kc], [kb, n - kb]]
                greater = stats.fisher_exact(table, alternative="greater").pvalue
                less = stats.fisher_exact(table, alternative="less").pvalue
                cases.append(
                    {
                        "k_base": kb,
                        "n_base": n,
                        "k_cand": kc,
                        "n_cand": m,
                        "p_greater": float(greater),
                        "p_less": float(less),
                    }
                )
    return cases


def wilson_cases() -> list[dict]:
    out = []
    for k, n in [(0, 5), (1, 5), (3, 10), (10, 10), (7, 20), (0, 1), (50, 100)]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        out.append({"k": k, "n": n, "low": float(ci.low), "high": float(ci.high)})
    return out


def multiplicity_cases(rng: random.Random) -> list[dict]:
    out = []
    for size in (1, 3, 8, 25):
        ps = [round(rng.random() ** 3, 6) for _ in range(size)]
        holm = multipletests(ps, method="holm")[1]
        bh = stats.false_discovery_control(ps, method="bh")
        out.append({"p": ps, "holm": [float(v) for v in holm], "bh": [float(v) for v in bh]})
    return out


def main() -> None:
    rng = random.Random(20261201)
    doc = {
        "generated_by": "scripts/reference/stats_reference.py",
        "scipy": scipy.__version__,
        "statsmodels": statsmodels.__version__,
        "mann_whitney": rank_cases(rng),
        "fisher": fisher_cases(),
        "wilson": wilson_cases(),
        "multiplicity": multiplicity_cases(rng),
    }
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
