"""What 'good' means for the predicted targets: one oriented score per target and their desirability (JMP style).

Each target is a goal (maximize, minimize, target value, range) with a weight. For one target the objective is
the prediction itself (oriented); for several, the weighted geometric mean of Derringer–Suich desirabilities,
each scaled over the target's span in the training data, and NSGA-II uses the oriented scores as its objectives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..task import EngineError

GOALS = ("maximize", "minimize", "target", "range")
FLOOR = 1e-4  # a desirability of 0 would hide every difference among poor candidates


@dataclass
class Target:
    name: str
    goal: str
    value: float | None = None  # goal 'target'
    lower: float | None = None  # goal 'range'
    upper: float | None = None
    weight: float = 1.0
    low: float = 0.0  # the target's span in the training data, for desirability
    high: float = 1.0

    def score(self, y: np.ndarray) -> np.ndarray:
        """Larger is better, in the target's own units."""
        if self.goal == "maximize":
            return y
        if self.goal == "minimize":
            return -y
        if self.goal == "target":
            return -np.abs(y - self.value)
        return -np.maximum(0.0, np.maximum(self.lower - y, y - self.upper))

    def desirability(self, y: np.ndarray) -> np.ndarray:
        span = max(self.high - self.low, 1e-12)
        if self.goal == "maximize":
            d = (y - self.low) / span
        elif self.goal == "minimize":
            d = (self.high - y) / span
        elif self.goal == "target":
            d = 1 - np.abs(y - self.value) / span
        else:
            d = 1 - np.maximum(0.0, np.maximum(self.lower - y, y - self.upper)) / span
        return np.clip(d, FLOOR, 1.0)


def parse_targets(raw: list[dict]) -> list[Target]:
    if not raw:
        raise EngineError("optimization.no_target")
    seen: set[str] = set()
    out = []
    for t in raw:
        name = str(t.get("name") or "")
        if name in seen:
            raise EngineError("optimization.duplicate_target", target=name)
        seen.add(name)
        goal = t.get("goal")
        if goal not in GOALS:
            raise EngineError("optimization.goal", target=name)
        tg = Target(name, goal, weight=float(t.get("weight") if t.get("weight") is not None else 1.0))
        if tg.weight <= 0:
            raise EngineError("optimization.weight", target=name)
        if goal == "target":
            if t.get("value") is None:
                raise EngineError("optimization.target_value", target=name)
            tg.value = float(t["value"])
        if goal == "range":
            if t.get("lower") is None or t.get("upper") is None or float(t["lower"]) > float(t["upper"]):
                raise EngineError("optimization.target_range", target=name)
            tg.lower, tg.upper = float(t["lower"]), float(t["upper"])
        out.append(tg)
    return out


def overall(targets: list[Target], Y: np.ndarray) -> np.ndarray:
    """The scalar every single-objective algorithm maximises; Y holds one column per target."""
    if len(targets) == 1:
        return targets[0].score(Y[:, 0])
    w = np.array([t.weight for t in targets])
    logd = np.column_stack([np.log(t.desirability(Y[:, i])) for i, t in enumerate(targets)])
    return np.exp(logd @ w / w.sum())


def scores(targets: list[Target], Y: np.ndarray) -> np.ndarray:
    return np.column_stack([t.score(Y[:, i]) for i, t in enumerate(targets)])


def pareto_mask(S: np.ndarray) -> np.ndarray:
    """Non-dominated rows of S (every column: larger is better)."""
    n = len(S)
    keep = np.ones(n, dtype=bool)
    order = np.argsort(-S[:, 0], kind="stable")
    for i in order:
        if not keep[i]:
            continue
        dominated = np.all(S <= S[i], axis=1) & np.any(S < S[i], axis=1)
        keep &= ~dominated
    return keep
