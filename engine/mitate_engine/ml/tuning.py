"""Auto-tune: Optuna's TPE over an algorithm's tunable parameters under cross-validation, alone or with helper
jobs sharing the study."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import numpy as np

from ..task import EngineError
from . import data as D
from .algorithms import Algorithm
from .pipeline import OutOfTime, cv_evaluate, unsupervised_score
from .project import Project


def _objective(proj: Project, algo: Algorithm, base: dict, space: list, Z: np.ndarray | None, deadline: float | None, folds: dict):
    """One trial's score. The first trial scored here (the defaults, in the main job) always completes; later ones stop
    at the deadline, between folds. Fold scores go to `folds` and, for shared studies, onto the trial itself."""
    import optuna

    def objective(trial):
        params = {**base, **{p.name: p.suggest(trial) for p in space}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if proj.supervised:
                try:
                    result = cv_evaluate(proj, algo, params, deadline if folds else None)
                except OutOfTime:
                    raise optuna.TrialPruned("time budget reached") from None
                folds[trial.number] = result
                if proj.tune_shared:
                    trial.set_user_attr("folds", [list(map(float, result[0])), float(result[1])])
                return result[1]
            return unsupervised_score(proj, algo, params, Z)

    return objective


TUNE_CATCH = (ValueError, np.linalg.LinAlgError, ArithmeticError)


def tune(
    proj: Project,
    algo: Algorithm,
    base: dict,
    report: Callable[[int, int, float | None, float | None], None],
    timeout: float | None = None,
    Z: np.ndarray | None = None,
    study_key: str | None = None,
) -> tuple[dict, list[dict], tuple[list[float], float] | None]:
    """Optuna's TPE over the algorithm's tunable parameters, `proj.n_trials` trials in all. With `proj.tune_shared`
    the study lives in the shared RDB storage (PostgreSQL) under `<study>:<study_key>`, and helper jobs on other
    workers (kind tune_helper) run trials of it at the same time; the count of all trials still stops at n."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    space = [p for p in algo.params if p.tune]
    if not space:
        if proj.tune_shared and study_key:
            from . import shared_tune

            shared_tune.close(proj.tune_shared, study_key)
        return base, [], None
    n = proj.n_trials
    shared = proj.tune_shared if proj.tune_shared and study_key else None
    sampler = optuna.samplers.TPESampler(seed=proj.seed, n_startup_trials=min(5, max(1, n // 2)), constant_liar=bool(shared))
    if shared:
        from . import shared_tune

        study = shared_tune.study(shared, study_key, sampler)
    else:
        study = optuna.create_study(direction="maximize", sampler=sampler)
    # The algorithm's defaults are trial 1 and the user's own values (if any differ) trial 2, so tuning never returns
    # something the validation score ranks below either.
    defaults = algo.defaults()
    first = {p.name: defaults.get(p.name, base[p.name]) for p in space}
    given = {p.name: base[p.name] for p in space}
    if not study.trials:
        study.enqueue_trial(first)
        if given != first:
            study.enqueue_trial(given)
    trials: list[dict] = []
    fold_scores: dict[int, tuple[list[float], float]] = {}
    deadline = time.monotonic() + timeout if timeout else None
    objective = _objective(proj, algo, base, space, Z, deadline, fold_scores)

    def callback(study, trial):
        value = trial.value if trial.state == optuna.trial.TrialState.COMPLETE else None
        try:
            best = study.best_value
        except ValueError:
            best = None
        trials.append({"number": trial.number + 1, "value": value, "params": trial.params, "state": trial.state.name.lower()})
        report(min(len(study.trials), n) if shared else trial.number + 1, n, value, best)

    callbacks = [callback]
    if shared:
        shared_tune.open_study(study, n)
        callbacks.insert(0, optuna.study.MaxTrialsCallback(n, states=None))
    try:
        study.optimize(objective, n_trials=n, timeout=timeout, callbacks=callbacks, catch=TUNE_CATCH)
        if shared:
            shared_tune.wait_running(study, deadline)
    finally:
        if shared:
            shared_tune.close_study(study)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    if not done:
        raise EngineError("no_trial_succeeded")
    best = study.best_trial
    if shared:
        # every worker's trials, in the order they were asked for; the best one's folds travelled with it
        trials = [
            {
                "number": t.number + 1,
                "value": t.value if t.state == optuna.trial.TrialState.COMPLETE else None,
                "params": t.params,
                "state": t.state.name.lower(),
                "worker": t.user_attrs.get("worker", "main"),
            }
            for t in study.trials
            if t.state != optuna.trial.TrialState.RUNNING
        ]
        f = best.user_attrs.get("folds")
        return {**base, **best.params}, trials, (f[0], f[1]) if f else fold_scores.get(best.number)
    return {**base, **best.params}, trials, fold_scores.get(best.number)


def join_tuning(
    proj: Project, algo: Algorithm, given_params: dict | None, study_key: str, timeout: float | None = None, on_error: Callable[[Exception], None] | None = None
) -> int:
    """A helper's share of a shared study: waits until the main job opens it, then runs trials until all n are
    asked for or the main job closes it. Answers how many trials ran here."""
    import optuna

    from . import shared_tune

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    space = [p for p in algo.params if p.tune]
    if not space or not proj.tune_shared:
        return 0
    base = algo.coerce(given_params)
    Z = None
    if not proj.supervised:
        pre = D.make_preprocessor(proj.kinds, True, proj.variance_threshold)
        Z = np.asarray(pre.fit_transform(proj.X_train), dtype=float)
    n = proj.n_trials
    sampler = optuna.samplers.TPESampler(n_startup_trials=min(5, max(1, n // 2)), constant_liar=True)
    study = shared_tune.wait_open(proj.tune_shared, study_key, sampler)
    if study is None:
        return 0
    deadline = time.monotonic() + timeout if timeout else None
    folds: dict = {0: None}  # never "first": a helper's trials all respect the deadline
    inner = _objective(proj, algo, base, space, Z, deadline, folds)
    ran = 0

    def objective(trial):
        nonlocal ran
        ran += 1
        trial.set_user_attr("worker", shared_tune.worker_name())
        return inner(trial)

    def stop_when_closed(study, _trial):
        if shared_tune.is_closed(study):
            study.stop()

    try:
        study.optimize(objective, n_trials=n, timeout=timeout, callbacks=[optuna.study.MaxTrialsCallback(n, states=None), stop_when_closed], catch=TUNE_CATCH)
    except Exception as exc:  # noqa: BLE001 - helping is best effort: a lost connection or a study the main job closed
        # under it ends this worker's share; the main job's trials and report stand on their own.
        if on_error is None:
            raise
        on_error(exc)
    return ran
