"""Names vulture cannot see used (read by `vulture`, never imported). npm test runs:
python -m vulture engine/mitate_engine engine/tests bench engine/vulture_whitelist.py --min-confidence 60
Anything it lists beyond these is dead code: delete it, or add it here with the reason it lives."""

# Task classes register themselves by subclassing Task (task.py __init_subclass__); the worker finds them by kind.
Diagnostics, ImageIngest, ImagePredict, ImagePreprocess, ImageTrain, OptimalDesign, Optimize, OptimizeCheck  # noqa
OptimizePredict, Preprocess, PreprocessPreview, StatisticalAnalysis, Statistics, Train, TsadDriftSuggest  # noqa
TsadTrain, TuneHelper, PlatformDrift  # noqa

# scikit-learn's estimator protocol (clone, search) calls these; `deep` is part of its signature.
_.get_params  # noqa
_.set_params  # noqa
deep  # noqa
# ... and a transformer's output names: the fitted attribute and get_feature_names_out(input_features).
_.feature_names_out_  # noqa
input_features  # noqa

# BullMQ's processor signature is (job, token).
token  # noqa

# Set on objects of other libraries: torch's BatchNorm momentum, Pillow's decompression-bomb limit.
_.momentum  # noqa
_.MAX_IMAGE_PIXELS  # noqa

# Tests: a Task subclass registered by defining it; pytest's module marker; http.server's handler hooks.
Echo  # noqa
pytestmark  # noqa
_.do_POST  # noqa
_.log_message  # noqa

# LightGBM's scikit-learn estimator reads these when it predicts: ml/stream.py sets them on the estimator whose
# booster it trained from a Dataset built row group by row group (LGBMModel.fit is bypassed there).
_._Booster  # noqa
_._best_iteration  # noqa
_._best_score  # noqa
_._evals_result  # noqa
_._fitted_with_feature_names  # noqa
_._n_classes  # noqa
_._n_features  # noqa
_.pandas_categorical  # noqa
# pytest fixtures taken by name (usefixtures).
streamed  # noqa

# The import system calls a meta path finder's and loader's hooks (legacy_modules.py OldNames).
_.find_spec  # noqa
_.create_module  # noqa
_.exec_module  # noqa

# pytest calls an autouse fixture by itself (tests/conftest.py: every task held to its declared shape).
_declared_job_shapes  # noqa
