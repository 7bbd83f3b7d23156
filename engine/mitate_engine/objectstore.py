"""Object storage for engine workers on other hosts (boto3, S3-compatible; the same MITATE_S3_* settings as the
server). A worker keeps a local cache folder that mirrors the server's data folder: before a job, the inputs its
spec names (paths under the server's data folder) are downloaded when missing from the cache; after it, the
job's output folder is uploaded, so the server finds it in the store. Object keys are paths relative to the data
folder (`files/<key>`, `jobs/<id>/...`), as the server's S3Storage writes them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def settings_from_env(env: dict | None = None) -> dict | None:
    env = os.environ if env is None else env
    bucket = env.get("MITATE_S3_BUCKET")
    if not bucket:
        return None
    endpoint = env.get("MITATE_S3_ENDPOINT") or None
    path_style = env.get("MITATE_S3_PATH_STYLE")
    prefix = env.get("MITATE_S3_PREFIX") or ""
    return {
        "endpoint": endpoint,
        "bucket": bucket,
        "region": env.get("MITATE_S3_REGION") or "us-east-1",
        "access_key_id": env.get("MITATE_S3_ACCESS_KEY_ID") or None,
        "secret_access_key": env.get("MITATE_S3_SECRET_ACCESS_KEY") or None,
        "path_style": (path_style.lower() in ("1", "true", "yes", "on")) if path_style else bool(endpoint),
        "prefix": prefix.rstrip("/") + "/" if prefix else "",
    }


class ObjectStore:
    def __init__(self, settings: dict):
        import boto3
        from botocore.config import Config

        self.bucket = settings["bucket"]
        self.prefix = settings["prefix"]
        self.client = boto3.client(
            "s3",
            endpoint_url=settings["endpoint"],
            region_name=settings["region"],
            aws_access_key_id=settings["access_key_id"],
            aws_secret_access_key=settings["secret_access_key"],
            config=Config(s3={"addressing_style": "path" if settings["path_style"] else "auto"}),
        )

    def _keys(self, prefix: str) -> list[str]:
        keys: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            keys.extend(o["Key"] for o in page.get("Contents", []))
        return keys

    def fetch(self, rel: str, dest: Path) -> int:
        """Downloads the object `rel`, or every object under `rel/` into the folder `dest`; returns how many."""
        key = self.prefix + rel
        n = 0
        for k in self._keys(key):
            if k == key:
                target = dest
            elif k.startswith(key + "/"):
                target = dest / k[len(key) + 1 :]
            else:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            part = target.with_name(f"{target.name}.part-{os.getpid()}")
            self.client.download_file(self.bucket, k, str(part))
            os.replace(part, target)
            n += 1
        return n

    def upload_tree(self, local: Path, rel: str) -> int:
        if not local.exists():
            return 0
        if local.is_file():
            self.client.upload_file(str(local), self.bucket, self.prefix + rel)
            return 1
        n = 0
        for f in sorted(p for p in local.rglob("*") if p.is_file()):
            self.client.upload_file(str(f), self.bucket, f"{self.prefix}{rel}/{f.relative_to(local).as_posix()}")
            n += 1
        return n


def _under(value: str, root: str) -> str | None:
    if value == root:
        return ""
    if value.startswith(root.rstrip("/") + "/"):
        return value[len(root.rstrip("/")) + 1 :]
    return None


def map_paths(value: Any, src_root: str, dst_root: str, seen: list[str] | None = None) -> Any:
    """Every string under `src_root` (recursively in dicts and lists) rewritten under `dst_root`."""
    if isinstance(value, str):
        rel = _under(value, src_root)
        if rel is None:
            return value
        if seen is not None:
            seen.append(rel)
        return str(Path(dst_root) / rel) if rel else dst_root
    if isinstance(value, dict):
        return {k: map_paths(v, src_root, dst_root, seen) for k, v in value.items()}
    if isinstance(value, list):
        return [map_paths(v, src_root, dst_root, seen) for v in value]
    return value


class JobFiles:
    """Download-before / upload-after around one job on a worker whose disk is not the server's."""

    def __init__(self, store: ObjectStore, server_data_dir: str, local_data_dir: str):
        self.store = store
        self.server_root = server_data_dir
        self.local_root = str(Path(local_data_dir).resolve())

    def localize(self, spec: dict) -> dict:
        rels: list[str] = []
        local = map_paths(spec, self.server_root, self.local_root, rels)
        out_rel = _under(spec.get("output_dir", ""), self.server_root) if isinstance(spec.get("output_dir"), str) else None
        for rel in dict.fromkeys(rels):
            if not rel or rel == out_rel:
                continue
            target = Path(self.local_root) / rel
            if not target.exists():
                self.store.fetch(rel, target)
        if out_rel:
            out = Path(self.local_root) / out_rel
            if not out.exists():  # a retried job continues from what its earlier attempt uploaded
                self.store.fetch(out_rel, out)
        return local

    def publish(self, spec: dict) -> int:
        out = spec.get("output_dir")
        rel = _under(out, self.server_root) if isinstance(out, str) else None
        if not rel:
            return 0
        return self.store.upload_tree(Path(self.local_root) / rel, rel)

    def result_back(self, result: Any) -> Any:
        return map_paths(result, self.local_root, self.server_root)
