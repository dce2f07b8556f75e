"""Small statistics for simulation reports: Wilson intervals, Newcombe and Welch differences (no SciPy)."""

from __future__ import annotations

import math
from typing import Optional

Z95 = 1.959963984540054


def wilson(k: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def newcombe(k1: float, n1: float, k2: float, n2: float) -> tuple[float, float, float]:
    """p2 - p1 with its 95% interval (Newcombe's hybrid score method, from two Wilson intervals)."""
    p1 = k1 / n1 if n1 else 0.0
    p2 = k2 / n2 if n2 else 0.0
    l1, u1 = wilson(k1, n1, Z95)
    l2, u2 = wilson(k2, n2, Z95)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return d, low, high


def t_quantile(df: float, z: float = Z95) -> float:
    """The two-sided 95% quantile of Student's t with df degrees of freedom (Cornish-Fisher expansion;
    within 0.1% of the exact value for df >= 3)."""
    if df <= 0 or math.isinf(df):
        return z
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def mean_var(n: float, s: float, ss: float) -> tuple[float, float]:
    """Mean and sample variance from a count, a sum and a sum of squares."""
    if n <= 0:
        return 0.0, 0.0
    mean = s / n
    var = max(0.0, (ss - s * s / n) / (n - 1)) if n > 1 else 0.0
    return mean, var


def mean_interval(n: float, s: float, ss: float) -> tuple[float, float, float]:
    """The mean with its 95% interval (Student's t)."""
    mean, var = mean_var(n, s, ss)
    if n < 2:
        return mean, mean, mean
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def welch(n1: float, s1: float, ss1: float, n2: float, s2: float, ss2: float) -> tuple[float, float, float]:
    """mean2 - mean1 with its 95% interval (Welch's t, unequal variances)."""
    m1, v1 = mean_var(n1, s1, ss1)
    m2, v2 = mean_var(n2, s2, ss2)
    d = m2 - m1
    if n1 < 2 or n2 < 2:
        return d, d, d
    a, b = v1 / n1, v2 / n2
    se = math.sqrt(a + b)
    if se == 0:
        return d, d, d
    df = (a + b) ** 2 / ((a * a / (n1 - 1) if a else 0.0) + (b * b / (n2 - 1) if b else 0.0))
    half = t_quantile(df) * se
    return d, d - half, d + half


def median(values: list) -> Optional[float]:
    if not values:
        return None
    if hasattr(values, "median"):  # aggregate.Samples: a histogram knows its median
        return values.median()
    v = sorted(values)
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2
