"""A safe expression language for computed columns: parsed into a tree and evaluated column-wise, never eval.

Grammar (precedence low → high)::

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/' | '×' | '÷') unary)*
    unary   := '-' unary | '+' unary | power
    power   := atom (('^' | '**') unary)?          # right-associative, binds tighter than unary minus on its left
    atom    := NUMBER | COLUMN | FUNC '(' args ')' | '(' expr ')'
    COLUMN  := identifier | [any name] | `any name` | "any name"

Functions: log (natural), log10, exp, sqrt, abs, lag(x, n=1), diff(x, n=1).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..task import EngineError


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Col:
    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Node, ...]


Node = Num | Col | Unary | Binary | Call

FUNCTIONS = {"log": (1, 1), "log10": (1, 1), "exp": (1, 1), "sqrt": (1, 1), "abs": (1, 1), "lag": (1, 2), "diff": (1, 2)}

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
      | (?P<op>\*\*|[-+*/^(),×÷])
      | \[(?P<bracket>[^\]]+)\]
      | `(?P<backtick>[^`]+)`
      | "(?P<dquote>[^"]+)"
      | (?P<name>[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF.]*)
    )""",
    re.VERBOSE,
)


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise EngineError("expr_unexpected_character", char=text[pos:].strip()[:1], position=str(pos + 1))
        pos = m.end()
        if m.group("num") is not None:
            tokens.append(("num", m.group("num")))
        elif m.group("op") is not None:
            op = m.group("op")
            tokens.append(("op", {"×": "*", "÷": "/", "**": "^"}.get(op, op)))
        elif m.group("name") is not None:
            tokens.append(("name", m.group("name")))
        else:
            tokens.append(("col", m.group("bracket") or m.group("backtick") or m.group("dquote")))
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.tokens = tokens
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise EngineError("expr_ends_early")
        self.i += 1
        return tok

    def expect(self, op: str) -> None:
        tok = self.take()
        if tok != ("op", op):
            raise EngineError("expr_expected", expected=op, found=str(tok[1]))

    def expr(self) -> Node:
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = Binary(op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            node = Binary(op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() in (("op", "-"), ("op", "+")):
            op = self.take()[1]
            operand = self.unary()
            return Unary("-", operand) if op == "-" else operand
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            return Binary("^", base, self.unary())
        return base

    def atom(self) -> Node:
        kind, text = self.take()
        if kind == "num":
            return Num(float(text))
        if kind == "col":
            return Col(text)
        if kind == "name":
            if self.peek() == ("op", "("):
                func = text.lower()
                if func not in FUNCTIONS:
                    raise EngineError("expr_unknown_function", function=text, allowed=", ".join(FUNCTIONS))
                self.take()
                args: list[Node] = []
                if self.peek() != ("op", ")"):
                    args.append(self.expr())
                    while self.peek() == ("op", ","):
                        self.take()
                        args.append(self.expr())
                self.expect(")")
                lo, hi = FUNCTIONS[func]
                if not lo <= len(args) <= hi:
                    raise EngineError("expr_argument_count", function=func, expected=str(lo) if lo == hi else f"{lo} or {hi}", got=str(len(args)))
                if func in ("lag", "diff") and len(args) == 2 and not isinstance(args[1], Num):
                    raise EngineError("expr_second_argument_integer", function=func)
                return Call(func, tuple(args))
            return Col(text)
        if (kind, text) == ("op", "("):
            node = self.expr()
            self.expect(")")
            return node
        raise EngineError("expr_unexpected", token=text)


def parse(text: str) -> Node:
    if not isinstance(text, str) or not text.strip():
        raise EngineError("expr_empty")
    tokens = tokenize(text)
    p = _Parser(tokens)
    node = p.expr()
    if p.peek() is not None:
        raise EngineError("expr_trailing", token=str(p.peek()[1]))
    return node


def columns_of(node: Node) -> list[str]:
    """The column names an expression reads, in order of first use."""
    out: list[str] = []

    def walk(n: Node) -> None:
        if isinstance(n, Col):
            if n.name not in out:
                out.append(n.name)
        elif isinstance(n, Unary):
            walk(n.operand)
        elif isinstance(n, Binary):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, Call):
            for a in n.args:
                walk(a)

    walk(node)
    return out


def _as_series(v: object, index: pd.Index) -> pd.Series:
    return v if isinstance(v, pd.Series) else pd.Series(float(v), index=index)  # type: ignore[arg-type]


def evaluate(node: Node, df: pd.DataFrame) -> pd.Series | float:
    """Evaluates over the frame's columns (as float64); missing values propagate as NaN."""
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Col):
        if node.name not in df.columns:
            raise EngineError("expr_column_missing", column=node.name)
        s = df[node.name]
        try:
            return pd.to_numeric(s, errors="raise").astype("float64")
        except (TypeError, ValueError) as exc:
            raise EngineError("expr_column_not_numeric", column=node.name) from exc
    if isinstance(node, Unary):
        return -evaluate(node.operand, df)  # type: ignore[operator]
    if isinstance(node, Binary):
        a = evaluate(node.left, df)
        b = evaluate(node.right, df)
        if node.op == "+":
            return a + b  # type: ignore[operator]
        if node.op == "-":
            return a - b  # type: ignore[operator]
        if node.op == "*":
            return a * b  # type: ignore[operator]
        if node.op == "/":
            zero = (b == 0) if not isinstance(b, pd.Series) else bool((b == 0).any())
            if zero:
                raise EngineError("expr_division_by_zero")
            return a / b  # type: ignore[operator]
        if node.op == "^":
            with np.errstate(all="ignore"):
                if isinstance(a, pd.Series) or isinstance(b, pd.Series):
                    return _as_series(a, df.index) ** b  # type: ignore[operator]
                return math.pow(a, b) if not (a < 0 and not float(b).is_integer()) else math.nan  # type: ignore[arg-type]
    if isinstance(node, Call):
        x = evaluate(node.args[0], df)
        f = node.func
        if f in ("lag", "diff"):
            n = int(node.args[1].value) if len(node.args) == 2 else 1  # type: ignore[union-attr]
            s = _as_series(x, df.index)
            return s.shift(n) if f == "lag" else s.diff(n)
        with np.errstate(all="ignore"):
            if f == "log":
                return np.log(x.where(x > 0)) if isinstance(x, pd.Series) else (math.log(x) if x > 0 else math.nan)
            if f == "log10":
                return np.log10(x.where(x > 0)) if isinstance(x, pd.Series) else (math.log10(x) if x > 0 else math.nan)
            if f == "exp":
                return np.exp(x)
            if f == "sqrt":
                return np.sqrt(x.where(x >= 0)) if isinstance(x, pd.Series) else (math.sqrt(x) if x >= 0 else math.nan)
            if f == "abs":
                return np.abs(x)
    raise EngineError("expr_unsupported")  # pragma: no cover


def compute(text: str, df: pd.DataFrame) -> pd.Series:
    """Parses and evaluates `text` over `df`; the result is a float64 series on the frame's index."""
    node = parse(text)
    out = _as_series(evaluate(node, df), df.index).astype("float64")
    return out.replace([np.inf, -np.inf], np.nan)
