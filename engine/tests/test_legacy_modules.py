"""Models pickled before the time-series package took its area's name (mitate_engine.tsad) still load."""

import importlib
import pickle

import mitate_engine.timeseries.model as present
import numpy as np
import pandas as pd
from mitate_engine.legacy_modules import present_name


def test_an_old_name_is_the_present_module():
    assert importlib.import_module("mitate_engine.tsad.model") is present
    assert importlib.import_module("mitate_engine.tsad") is importlib.import_module("mitate_engine.timeseries")
    assert present_name("mitate_engine.tsad.detectors") == "mitate_engine.timeseries.detectors"
    assert present_name("mitate_engine.tsadx") is None
    assert present_name("mitate_engine.platform.serve") is None


def test_a_pickle_naming_the_old_module_gives_the_present_class():
    assert pickle.loads(b"cmitate_engine.tsad.model\nresample\n.") is present.resample


def test_a_model_pickled_under_the_old_name_predicts():
    from mitate_engine.timeseries.mspc import PcaMspc

    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    det = PcaMspc(explained_variance=0.9).fit(x.to_numpy())
    blob = pickle.dumps(det, protocol=0).replace(b"mitate_engine.timeseries.", b"mitate_engine.tsad.")
    assert b"mitate_engine.tsad.mspc" in blob
    again = pickle.loads(blob)
    assert type(again) is PcaMspc
    assert np.allclose(again.score(x.to_numpy()), det.score(x.to_numpy()))
