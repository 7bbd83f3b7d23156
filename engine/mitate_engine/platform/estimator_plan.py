"""The estimator of a compiled hosted-API model as plain data (the "estimator" of a serving plan, platform/fast.py):
LightGBM trees from the booster's dump, a random forest's or extra-trees' own arrays, or a linear/logistic model's
coefficients. What it does not know exactly answers None, and the model stays with the serving process."""

from __future__ import annotations

import numpy as np


class _Unknown(Exception):
    """A tree node this plan cannot express (linear trees, categorical splits, ...)."""


def is_lightgbm(est) -> bool:
    return type(est).__module__.startswith("lightgbm")


_MISSING_TYPES = {"None": 0, "Zero": 1, "NaN": 2}
# objectives whose raw score is the prediction (regression) or whose transform the plan knows
_IDENTITY_OBJECTIVES = {"regression", "regression_l1", "huber", "fair", "quantile", "mape"}


def estimator_plan(est, project_type: str) -> dict | None:
    if is_lightgbm(est) and type(est).__name__ in ("LGBMRegressor", "LGBMClassifier"):
        return _lightgbm_plan(est.booster_)
    from sklearn.linear_model import ElasticNet, Lasso, LinearRegression, LogisticRegression, Ridge

    if type(est) in (LinearRegression, Ridge, Lasso, ElasticNet):
        coef = np.asarray(est.coef_, dtype=float)
        if coef.ndim != 1:
            return None
        return {"kind": "linear", "coef": coef.tolist(), "intercept": float(est.intercept_)}
    if project_type in ("regression", "soft_sensor", "discriminant_analysis"):
        forest = _forest_plan(est, classifier=project_type == "discriminant_analysis")
        if forest is not None:
            return forest
    if type(est) is LogisticRegression:
        coef = np.asarray(est.coef_, dtype=float)
        if coef.ndim != 2 or len(est.classes_) < 2 or coef.shape[0] != (1 if len(est.classes_) == 2 else len(est.classes_)):
            return None
        return {"kind": "logistic", "coef": coef.tolist(), "intercept": np.asarray(est.intercept_, dtype=float).tolist()}
    return None


# A forest's plan holds every node: beyond this many (a deep forest on many rows: tens of MB of JSON, read in the
# server's event loop) the model stays with the serving process.
MAX_FOREST_NODES = 300_000


def _forest_plan(est, classifier: bool) -> dict | None:
    """A random forest or extra-trees model as its trees' own arrays (scikit-learn's Tree: children, split feature,
    threshold, node value; a classifier's node holds one value per class, row after row). Each tree compares the row
    converted to float32 (as scikit-learn's trees read X) with the threshold; a regressor's prediction is the mean of
    the leaf values, a classifier's probabilities the mean of each leaf's values over their sum."""
    from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier, RandomForestRegressor

    kinds = (RandomForestClassifier, ExtraTreesClassifier) if classifier else (RandomForestRegressor, ExtraTreesRegressor)
    if type(est) not in kinds or not getattr(est, "estimators_", None):
        return None
    if sum(int(t.tree_.node_count) for t in est.estimators_) > MAX_FOREST_NODES:
        return None
    k = int(est.n_classes_) if classifier else 1
    if classifier and (not isinstance(est.n_classes_, (int, np.integer)) or k < 2):
        return None  # several outputs
    trees = []
    for t in est.estimators_:
        tree = t.tree_
        if tree.n_outputs != 1 or tree.value.shape[2] < k:
            return None
        trees.append(
            {
                "feature": tree.feature.tolist(),
                "threshold": tree.threshold.tolist(),
                "left": tree.children_left.tolist(),
                "right": tree.children_right.tolist(),
                "value": tree.value[:, 0, :k].astype(float).ravel().tolist(),
            }
        )
    return {"kind": "forest", "num_class": k, "num_features": int(est.n_features_in_), "trees": trees}


def _lightgbm_plan(booster) -> dict | None:
    """The booster's trees as flat arrays, the way LightGBM holds them: an internal node's child is its index, a
    leaf is ~leaf_index (negative); numerical splits only (the pipeline one-hot encodes categories)."""
    dump = booster.dump_model()
    objective = str(dump.get("objective", "")).split()
    if not objective:
        return None
    name, options = objective[0], dict(o.split(":", 1) for o in objective[1:] if ":" in o)
    per_iteration = int(dump["num_tree_per_iteration"])
    num_class = int(dump["num_class"])
    if name in _IDENTITY_OBJECTIVES and not any(o in ("sqrt",) for o in objective[1:]) and num_class == 1:
        transform, sigmoid = "identity", 1.0
    elif name == "binary" and num_class == 1:
        transform, sigmoid = "sigmoid", float(options.get("sigmoid", 1.0))
    elif name == "multiclass" and num_class == per_iteration > 1:
        transform, sigmoid = "softmax", 1.0
    else:
        return None
    trees = []
    for info in dump["tree_info"]:
        if info.get("num_cat", 0):
            return None
        tree: dict[str, list] = {"split_feature": [], "threshold": [], "default_left": [], "missing_type": [], "left": [], "right": [], "leaf_value": []}
        try:
            _flatten(info["tree_structure"], tree)
        except _Unknown:
            return None
        trees.append(tree)
    if not trees or len(trees) % per_iteration:
        return None
    return {
        "kind": "lightgbm",
        "num_class": num_class,
        "num_tree_per_iteration": per_iteration,
        "transform": transform,
        "sigmoid": sigmoid,
        "average_output": bool(dump.get("average_output", False)),
        "num_features": int(dump["max_feature_idx"]) + 1,
        "trees": trees,
    }


def _flatten(node: dict, tree: dict[str, list]) -> int:
    """Appends `node` (and below) to the tree's arrays; its index, or ~leaf index for a leaf."""
    if "split_index" not in node:
        if set(node) - {"leaf_index", "leaf_value", "leaf_weight", "leaf_count"}:
            raise _Unknown  # linear trees and anything else unknown
        tree["leaf_value"].append(float(node["leaf_value"]))
        return ~(len(tree["leaf_value"]) - 1)
    if node.get("decision_type") != "<=" or node.get("missing_type") not in _MISSING_TYPES:
        raise _Unknown
    i = len(tree["threshold"])
    tree["split_feature"].append(int(node["split_feature"]))
    tree["threshold"].append(float(node["threshold"]))
    tree["default_left"].append(bool(node["default_left"]))
    tree["missing_type"].append(_MISSING_TYPES[node["missing_type"]])
    tree["left"].append(0)
    tree["right"].append(0)
    tree["left"][i] = _flatten(node["left_child"], tree)
    tree["right"][i] = _flatten(node["right_child"], tree)
    return i
