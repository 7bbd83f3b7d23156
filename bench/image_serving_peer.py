"""The peer of image-serving.bench.mjs: a minimal FastAPI + uvicorn server (one worker) with the same frozen image model
(model.pt of the hosted API's folder) loaded once and kept warm, scoring one uploaded image per request with the same
engine code (ImageModel.row), so the comparison is the serving architecture alone. It says the time of the decode and
of the model in Server-Timing, as Mitate does, so the bench can split both answers' time the same way."""

import io
import sys
import time

import uvicorn
from fastapi import FastAPI, Response, UploadFile
from mitate_engine.images.backbone import configure_threads
from mitate_engine.images.data import open_rgb
from mitate_engine.images.model import ImageModel

folder, port = sys.argv[1], int(sys.argv[2])
configure_threads()
model = ImageModel.load(f"{folder}/model.pt")
app = FastAPI()


@app.post("/predict")
def predict(image: UploadFile, response: Response):
    t0 = time.perf_counter()
    rgb = open_rgb(io.BytesIO(image.file.read()), name="image")
    t1 = time.perf_counter()
    row, _ = model.row(rgb)
    t2 = time.perf_counter()
    response.headers["server-timing"] = f"decode;dur={(t1 - t0) * 1000:.3f}, model;dur={(t2 - t1) * 1000:.3f}"
    return {"predicted": row["predicted"], "score": row["score"], "threshold": model.threshold}


uvicorn.run(app, host="127.0.0.1", port=port, workers=1, log_level="warning", access_log=False)
