"""Issue 18 item 4: CSVs the engine writes never carry a live spreadsheet formula."""

import csv

import pandas as pd
from mitate_engine.csvsafe import neutralise_cell, write_csv


def test_formula_cells_get_a_quote_and_plain_numbers_do_not():
    for raw in ['=HYPERLINK("http://x","y")', "+SUM(1+1)", "@SUM(A1)", "-2+3", "=cmd|' /C calc'!A0", "\tx", "\rx"]:
        assert neutralise_cell(raw) == "'" + raw
    for raw in ["-3", "+1.5e3", "-.5", "plain", "a=b", "", "1-2"]:
        assert neutralise_cell(raw) == raw
    assert neutralise_cell(-3.5) == -3.5
    assert neutralise_cell(None) is None


def test_write_csv_neutralises_text_cells_and_names_only(tmp_path):
    df = pd.DataFrame(
        {
            "label": ['=HYPERLINK("http://evil","x")', "+SUM(1+1)", "@SUM(A1)", "ok"],
            "value": [-1.5, 2.0, -3.0, 4.0],
            "count": [-1, 0, 1, 2],
            "=name": ["a", "b", "c", "-7"],
        }
    )
    path = tmp_path / "out.csv"
    write_csv(df, path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["label", "value", "count", "'=name"]
    assert [r[0] for r in rows[1:]] == ['\'=HYPERLINK("http://evil","x")', "'+SUM(1+1)", "'@SUM(A1)", "ok"]
    assert [r[1] for r in rows[1:]] == ["-1.5", "2.0", "-3.0", "4.0"]
    assert [r[2] for r in rows[1:]] == ["-1", "0", "1", "2"]
    assert rows[4][3] == "-7"
    assert df.loc[0, "label"].startswith("=")  # the caller's frame is not changed
