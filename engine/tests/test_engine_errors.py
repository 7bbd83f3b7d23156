"""One idiom for a user error in every engine module: `raise EngineError(code, **params)`, the words of each code in
messages.json (en + ja), and one failure record from the runner. The scan below fails when a module finds another way
(an error class of its own, a helper that builds the error, an English sentence beside the code, a plain UserError)."""

import ast
import json
import re
from pathlib import Path

from mitate_engine.runner import error_event
from mitate_engine.task import EngineError, messages

ENGINE = Path(__file__).resolve().parents[1] / "mitate_engine"
MODULES = sorted(p for p in ENGINE.rglob("*.py") if p.name != "task.py")
#: exception types a user error must not derive from (the old idioms: ValueError subclasses, EngineError subclasses)
USER_BASES = {"ValueError", "TypeError", "KeyError", "UserError", "EngineError"}


def trees():
    for path in MODULES:
        yield path.relative_to(ENGINE), ast.parse(path.read_text(encoding="utf-8"))


def name_of(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def engine_errors(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and name_of(n.func) == "EngineError"]


def literal_codes(call: ast.Call, tree: ast.AST) -> list[str]:
    """The codes a call can raise when the source names them: a literal, a conditional of literals, or a local
    variable assigned such an expression (e.g. preprocessing's step_param_between / _at_least / _at_most)."""
    first = call.args[0]
    if isinstance(first, ast.Name):
        assigned = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and any(name_of(t) == first.id for t in n.targets)]
        first = assigned[0] if len(assigned) == 1 else first
    if not isinstance(first, ast.Constant | ast.IfExp):
        return []  # a key read from a catalogue (tsad's algorithm names): their own tests hold them to messages.json
    return [n.value for n in ast.walk(first) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_the_scan_sees_the_engine():
    calls = [c for _, tree in trees() for c in engine_errors(tree)]
    assert len(MODULES) > 100 and len(calls) > 300, (len(MODULES), len(calls))


def test_no_module_defines_a_user_error_class_of_its_own():
    found = []
    for rel, tree in trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and {name_of(b) for b in node.bases} & USER_BASES:
                found.append(f"{rel}:{node.lineno} class {node.name}")
    assert not found, "raise EngineError(code, **params) instead: " + ", ".join(found)


def test_an_exception_class_of_a_module_is_control_flow_caught_in_the_engine():
    """An Exception subclass outside task.py is internal (caught again), never a way to tell the user something."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in MODULES)
    for rel, tree in trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(name_of(b) == "Exception" for b in node.bases):
                assert re.search(rf"except \(?[\w., ]*\b{node.name}\b", sources), f"{rel}: {node.name} is raised but never caught"


def test_no_helper_builds_the_error_and_no_plain_user_error_is_raised():
    found = []
    for rel, tree in trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # a helper takes the code and hands it on (fail(code, ...), opt_error(code, message, ...))
                params = {a.arg for a in node.args.args + node.args.kwonlyargs}
                for call in engine_errors(node):
                    if (
                        call.args
                        and isinstance(call.args[0], ast.Name | ast.JoinedStr)
                        and (ast.unparse(call.args[0]) in params or isinstance(call.args[0], ast.JoinedStr))
                    ):
                        found.append(f"{rel}:{node.lineno} def {node.name} (a helper that makes an EngineError from a code it is given)")
            if isinstance(node, ast.Call) and name_of(node.func) in {"UserError", "fail", "opt_error", "design_error", "input_error", "image_error"}:
                found.append(f"{rel}:{node.lineno} {name_of(node.func)}(...)")
    assert not found, "raise EngineError(code, **params) instead: " + ", ".join(found)


def test_every_error_names_a_code_of_the_catalogue_with_its_parameters_and_no_sentence():
    catalogue = messages()
    missing, sentences, unfilled = [], [], []
    for rel, tree in trees():
        for call in engine_errors(tree):
            if len(call.args) != 1:
                sentences.append(f"{rel}:{call.lineno}")
                continue
            codes = literal_codes(call, tree)
            missing += [f"{rel}:{call.lineno} {code}" for code in codes if code not in catalogue]
            given = {k.arg for k in call.keywords}
            if None not in given:  # no **params: each placeholder of the words needs its parameter
                unfilled += [
                    f"{rel}:{call.lineno} {c} {{{k}}}" for c in codes if c in catalogue for k in re.findall(r"\{(\w+)\}", catalogue[c]["en"]) if k not in given
                ]
    assert not sentences, "EngineError takes the code and keyword parameters only (its words are in messages.json): " + ", ".join(sentences)
    assert not missing, "codes raised but not in messages.json: " + ", ".join(missing)
    assert not unfilled, "placeholders without their parameter: " + ", ".join(unfilled)


def test_every_code_of_the_catalogue_has_both_languages_with_the_same_placeholders():
    raw = json.loads((ENGINE / "messages.json").read_text(encoding="utf-8"))
    assert len(raw) > 500
    for code, entry in raw.items():
        assert set(entry) == {"en", "ja"}, code
        assert entry["en"].strip() and entry["ja"].strip(), code
        assert set(re.findall(r"\{(\w+)\}", entry["en"])) == set(re.findall(r"\{(\w+)\}", entry["ja"])), code


def test_the_runner_turns_every_user_error_into_the_same_failure_record():
    inner = EngineError("step_column_missing", column="x")
    outer = EngineError("step_failed", step=2, kind="Scaling, standard", reason=inner)
    record = error_event(outer)
    assert set(record) == {"type", "error"} and record["type"] == "error"
    assert json.loads(record["error"]) == {
        "code": "step_failed",
        "params": {"step": 2, "kind": "Scaling, standard", "reason": {"code": "step_column_missing", "params": {"column": "x"}, "message": inner.message}},
        "message": 'Step 2 (Scaling, standard): the column "x" does not exist',
    }
    # the domain packages' codes travel the same way (statistics, optimisation, design of experiments)
    for code, params in [("zero_variance", {"group": "a"}), ("optimization.weight", {"target": "y"}), ("runs_range", {"max": 500})]:
        e = EngineError(code, **params)
        assert json.loads(error_event(e)["error"]) == {"code": code, "params": params, "message": e.message}
        assert e.message == str(e) and "{" not in e.message
    assert EngineError("runs_range", max=1000).message == "The number of output conditions must be between 1 and 1,000."
