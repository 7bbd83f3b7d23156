"""The peer: a minimal FastAPI + uvicorn server (one worker) serving the same frozen model through the same
engine prediction path (mitate_engine.platform.serve), so the comparison is the serving architecture alone."""

import sys

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from mitate_engine.platform.serve import ModelCache, answer

folder, port = sys.argv[1], int(sys.argv[2])
cache = ModelCache()
app = FastAPI()


@app.post("/predict")
async def predict(request: Request):
    body = await request.json()
    (result,) = answer(cache, {"model": {"key": "m", "dir": folder}, "requests": [{"rows": body["rows"]}]})
    if "error" in result:
        raise HTTPException(status_code=result["status"], detail=result["error"])
    return result


uvicorn.run(app, host="127.0.0.1", port=port, workers=1, log_level="warning", access_log=False)
