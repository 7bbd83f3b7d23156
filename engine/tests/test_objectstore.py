"""Object storage on a worker whose disk is not the server's: inputs downloaded, outputs uploaded, paths mapped."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
from mitate_engine.objectstore import JobFiles, ObjectStore, map_paths, settings_from_env
from moto import mock_aws

SETTINGS = {
    "endpoint": None,
    "bucket": "mitate-test",
    "region": "us-east-1",
    "access_key_id": "test",
    "secret_access_key": "test",
    "path_style": True,
    "prefix": "p/",
}


@pytest.fixture
def store():
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="mitate-test")
        yield ObjectStore(SETTINGS)


def test_settings_from_env():
    assert settings_from_env({}) is None
    s = settings_from_env({"MITATE_S3_BUCKET": "b", "MITATE_S3_ENDPOINT": "http://x:9000", "MITATE_S3_PREFIX": "t"})
    assert s == {**SETTINGS, "bucket": "b", "endpoint": "http://x:9000", "access_key_id": None, "secret_access_key": None, "prefix": "t/"}
    assert settings_from_env({"MITATE_S3_BUCKET": "b"})["path_style"] is False


def test_map_paths_rewrites_only_paths_under_the_root():
    seen: list[str] = []
    spec = {"parquet": "/srv/data/files/o/d/data.parquet", "nested": [{"m": "/srv/data/files/o/r"}], "other": "/srv/database", "n": 3}
    out = map_paths(spec, "/srv/data", "/cache", seen)
    assert out == {"parquet": "/cache/files/o/d/data.parquet", "nested": [{"m": "/cache/files/o/r"}], "other": "/srv/database", "n": 3}
    assert seen == ["files/o/d/data.parquet", "files/o/r"]


def test_job_files_download_inputs_upload_outputs_and_map_the_result_back(store, tmp_path: Path):
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.put_object(Bucket="mitate-test", Key="p/files/o/d/data.parquet", Body=b"PAR1")
    s3.put_object(Bucket="mitate-test", Key="p/files/o/model/model.joblib", Body=b"M")
    s3.put_object(Bucket="mitate-test", Key="p/files/o/model/manifest.json", Body=b"{}")
    s3.put_object(Bucket="mitate-test", Key="p/files/o/model-other/x", Body=b"not mine")
    files = JobFiles(store, "/srv/data", str(tmp_path))
    spec = {"parquet": "/srv/data/files/o/d/data.parquet", "model": "/srv/data/files/o/model", "output_dir": "/srv/data/files/o/pred"}
    local = files.localize(spec)
    assert Path(local["parquet"]).read_bytes() == b"PAR1"
    assert sorted(p.name for p in Path(local["model"]).iterdir()) == ["manifest.json", "model.joblib"]
    assert not (tmp_path / "files/o/model-other").exists()
    out = Path(local["output_dir"])
    (out / "sub").mkdir(parents=True)
    (out / "result.csv").write_text("a\n1\n")
    (out / "sub" / "chart.json").write_text("{}")
    assert files.publish(spec) == 2
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket="mitate-test", Prefix="p/files/o/pred/")["Contents"])
    assert keys == ["p/files/o/pred/result.csv", "p/files/o/pred/sub/chart.json"]
    assert files.result_back({"csv": str(out / "result.csv"), "rows": 1}) == {"csv": "/srv/data/files/o/pred/result.csv", "rows": 1}
    # a second job finds its inputs in the cache and downloads nothing
    before = (tmp_path / "files/o/d/data.parquet").stat().st_mtime_ns
    files.localize(spec)
    assert (tmp_path / "files/o/d/data.parquet").stat().st_mtime_ns == before
