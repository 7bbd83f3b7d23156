# One image for every Mitate process: the API server (default command) and engine workers
# (`python -m mitate_engine.bull_worker ...`). Built from the repository root: docker build -t mitate .
FROM node:20-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv python3-dev build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
COPY packages/rules/package.json packages/rules/
RUN npm ci --workspaces --include-workspace-root
COPY engine/requirements.txt engine/
RUN python3 -m venv .venv && .venv/bin/pip install --no-cache-dir -r engine/requirements.txt
COPY . .
RUN npm run -w web build
ENV HOST=0.0.0.0 PORT=8080 MITATE_DATA_DIR=/data MITATE_PYTHON=/app/.venv/bin/python PYTHONPATH=/app/engine
EXPOSE 8080
WORKDIR /app/server
CMD ["npx", "tsx", "src/main.ts"]
